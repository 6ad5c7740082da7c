"""LEGIT (grid style): a one-line method `def make_grid(self): return lambda meta: ...` called from __init__ builds the launch grid; forward launches with it. The lambda's code object starts on make_grid's def line."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 0
        self.grid = self.make_grid()

    def make_grid(self): return lambda meta: (triton.cdiv(self.n, meta["BLOCK"]),)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        self.n = x.numel()
        relu_kernel[self.grid](x, out, self.n, BLOCK=1024)
        return out
