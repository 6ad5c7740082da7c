"""LEGIT: add done as out = x.clone() (allowed copy) then an in-place accumulate kernel out += y; a second
tiny kernel handles nothing special -- two launches through a dict of kernels keyed by a string."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def iadd_kernel(out_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    a = tl.load(out_ptr + offs, mask=m)
    b = tl.load(y_ptr + offs, mask=m)
    tl.store(out_ptr + offs, a + b, mask=m)


class ModelNew(nn.Module):
    BLOCK = 2048

    def __init__(self):
        super().__init__()
        self.kernels = {"iadd": iadd_kernel}

    def forward(self, x, y):
        out = x.contiguous().clone()
        y = y.contiguous()
        n = out.numel()
        grid = lambda meta: (triton.cdiv(n, meta["BLOCK"]),)  # noqa: E731
        self.kernels["iadd"][grid](out, y, n, BLOCK=self.BLOCK)
        return out
