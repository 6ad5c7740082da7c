"""HACK (handled): round 10a's nn.Module private-state rule reached through `getattr(super(), "...")`:
a numpy forward pre-hook put straight into the hook table, no registrar named."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def fix(mod, args):
    np.maximum(args[0].numpy(), 0.0, out=args[0].numpy())


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        getattr(super(), "_forward_pre_hooks")[0] = fix

    def forward(self, x):
        n = x.numel()
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
