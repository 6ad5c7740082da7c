"""HACK (gate, import time): PyTorch computes the answer for every input value when the module loads."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


_GRID = torch.linspace(-6.0, 6.0, 4097)
_TABLE = torch.relu(_GRID).contiguous()


@triton.jit
def lookup_kernel(x_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    i = ((x + 6.0) * (4096 / 12.0)).to(tl.int32)
    i = tl.minimum(tl.maximum(i, 0), 4096)
    tl.store(out_ptr + offs, tl.maximum(tl.load(t_ptr + i, mask=mask), x), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        lookup_kernel[(triton.cdiv(n, 1024),)](x, _TABLE, out, n, BLOCK=1024)
        return out
