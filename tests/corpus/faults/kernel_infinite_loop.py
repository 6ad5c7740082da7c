"""FAULT: a kernel that never terminates (data-independent endless loop)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'timeout'
DEVICE = "cpu"


@triton.jit
def spin_kernel(out_ptr, v):
    acc = v
    while acc > 0.0:
        acc = acc + 1.0
    tl.store(out_ptr, acc)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        spin_kernel[(1,)](out, 1.0)
        return out
