"""LEGIT: a launcher helper that caches a per-shape launch plan with dict.setdefault and is called from
forward (the style of hand-written Triton wrappers)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def add_kernel(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


class Launcher:
    def __init__(self, block=1024):
        self.block = block
        self.plans = {}

    def plan(self, n):
        return self.plans.setdefault(n, (triton.cdiv(n, self.block), self.block))

    def __call__(self, a, b):
        out = torch.empty_like(a)
        n = a.numel()
        blocks, block = self.plan(n)
        add_kernel[(blocks,)](a, b, out, n, BLOCK=block)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launch = Launcher()

    def forward(self, a, b):
        return self.launch(a.contiguous(), b.contiguous())
