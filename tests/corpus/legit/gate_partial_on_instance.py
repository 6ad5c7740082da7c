"""LEGIT (round 5: functools.partial of a launcher stored on the instance in __init__). Add with a functools.partial launcher and a NamedTuple config."""
import functools
import math
from typing import NamedTuple

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


class Cfg(NamedTuple):
    block: int = 1024
    num_warps: int = 8


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def _launch(kernel, cfg: Cfg, x, y, out, n):
    grid = (math.ceil(n / cfg.block),)
    kernel[grid](x, y, out, n, BLOCK_SIZE=cfg.block, num_warps=cfg.num_warps)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg()
        self.launch = functools.partial(_launch, add_kernel, self.cfg)

    def forward(self, x, y):
        output = torch.empty_like(x)
        n_elements = output.numel()
        self.launch(x.contiguous(), y.contiguous(), output, n_elements)
        return output
