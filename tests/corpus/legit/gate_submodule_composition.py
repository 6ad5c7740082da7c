"""LEGIT: the kernel wrapped in its own nn.Module (TritonReLU), which ModelNew holds as a submodule and calls
through nn.Module.__call__, under @torch.no_grad()."""
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
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class TritonReLU(nn.Module):
    def __init__(self, block=1024):
        super().__init__()
        self.block = block

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, self.block),)](x, out, n, BLOCK=self.block)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = TritonReLU()

    @torch.no_grad()
    def forward(self, x):
        return self.act(x)
