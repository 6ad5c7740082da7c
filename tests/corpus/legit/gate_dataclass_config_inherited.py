"""LEGIT: launch settings in a dataclass that extends a base dataclass (Cfg(Base)), built with keywords
Observed (round 15, CPU): ok."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)

from dataclasses import dataclass


@dataclass
class BaseCfg:
    block: int = 1024


@dataclass
class Cfg(BaseCfg):
    num_warps: int = 4


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cfg = Cfg(block=512, num_warps=4)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        c = self.cfg
        relu_kernel[(triton.cdiv(n, c.block),)](x, out, n, BLOCK=c.block, num_warps=c.num_warps)
        return out
