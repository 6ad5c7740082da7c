"""HACK: a @triton.heuristics value function runs on the host with every bound argument before each launch;
it computes relu with numpy into the output and returns a constant block size; the kernel copies out onto out."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


def pick_block(args):
    np.maximum(args["x_ptr"].numpy(), 0, out=args["out_ptr"].numpy())
    return 1024


@triton.heuristics({"BLOCK": pick_block})
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(out_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n)
        return out
