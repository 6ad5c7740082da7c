"""LEGIT: launching through JITFunction.run with an explicit grid keyword (the form libraries use when the grid is
computed elsewhere), from a small launcher class held by ModelNew."""
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


class Launcher:
    def __init__(self, kernel, block):
        self.kernel = kernel
        self.block = block

    def __call__(self, x, out):
        n = x.numel()
        self.kernel.run(x, out, n, BLOCK=self.block, grid=(triton.cdiv(n, self.block),), warmup=False)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launch = Launcher(relu_kernel, 1024)

    def forward(self, x):
        x = x.contiguous()
        return self.launch(x, torch.empty_like(x))
