"""LEGIT (factory style): __init__ stores the plain launcher class (self.make = Launch); forward builds one per call with self.make(x) and runs it. Launch.__init__ only computes sizes."""
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


class Launch:
    def __init__(self, x):
        self.n = x.numel()
        self.grid = (triton.cdiv(self.n, 1024),)

    def run(self, x, out):
        relu_kernel[self.grid](x, out, self.n, BLOCK=1024)
        return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.make = Launch

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        return self.make(x).run(x, out)
