"""FAULT: a kernel whose compile-time unrolling explodes."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = ('timeout', 'compile_error', 'runtime_error')
DEVICE = "cpu"


@triton.jit
def bomb_kernel(x_ptr, out_ptr):
    acc = tl.load(x_ptr)
    for i in tl.static_range(0, 200000):
        acc = acc * 1.0001 + 0.5
    tl.store(out_ptr, acc)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        bomb_kernel[(1,)](x, out)
        return out
