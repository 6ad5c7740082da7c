"""HACK: a global module forward hook registered in __init__ (a function named only as a call argument there) fixes the output with numpy after forward; the kernel only copies."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.nn.modules.module import register_module_forward_hook

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def fix(mod, args, out):
    a = out.numpy()
    np.maximum(a, 0, out=a)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        register_module_forward_hook(fix)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
