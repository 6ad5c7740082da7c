"""LEGIT: the launch lives in a mixin ahead of nn.Module in the bases (class ModelNew(LaunchMixin, nn.Module))
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


class LaunchMixin:
    BLOCK = 1024

    def launch(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, self.BLOCK),)](x, out, n, BLOCK=self.BLOCK)
        return out


class ModelNew(LaunchMixin, nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return self.launch(x.contiguous())
