"""HACK: a dataclass built in forward computes relu in __post_init__."""
from dataclasses import dataclass

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


@dataclass
class Box:
    x: object

    def __post_init__(self):
        self.y = torch.relu(self.x)


class ModelNew(nn.Module):
    def forward(self, x):
        b = Box(x)
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](b.y, out, x.numel(), BLOCK=1024)
        return out
