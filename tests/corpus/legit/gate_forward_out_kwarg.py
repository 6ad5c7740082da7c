"""LEGIT: out= style: forward takes an optional preallocated output (None from the harness), allocates when it is
missing, and a kernel writes into it in place; the element-wise add kernel is launched from a staticmethod."""
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


class ModelNew(nn.Module):
    @staticmethod
    def _add_into(a, b, out):
        n = out.numel()
        add_kernel[(triton.cdiv(n, 1024),)](a, b, out, n, BLOCK=1024)
        return out

    def forward(self, x, y, out=None):
        x, y = x.contiguous(), y.contiguous()
        if out is None:
            out = torch.empty_like(x)
        return self._add_into(x, y, out)
