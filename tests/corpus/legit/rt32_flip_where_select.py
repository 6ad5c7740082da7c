"""LEGIT (round 32): ``torch.where(x > y, x - y, x * y)`` where each program loads its block in reversed
order (offsets counted down) and ``tl.flip``-s the result back before a forward-order store; full blocks
only inside, a masked tail. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "where_select_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def where_flip_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    base = pid * BLOCK
    r = tl.arange(0, BLOCK)
    rev = base + (BLOCK - 1 - r)
    m_rev = rev < n
    x = tl.load(x_ptr + rev, mask=m_rev, other=0.0)
    y = tl.load(y_ptr + rev, mask=m_rev, other=0.0)
    z = tl.where(x > y, x - y, x * y)
    z = tl.flip(z, 0)
    fwd = base + r
    tl.store(out_ptr + fwd, z, mask=fwd < n)


class ModelNew(nn.Module):
    def forward(self, x, y):
        x = x.contiguous()
        y = y.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        where_flip_kernel[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
        return out
