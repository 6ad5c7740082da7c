"""LEGIT (round 32): running max with ``tl.associative_scan`` and a custom ``@triton.jit`` combine function,
row wider than the block handled by a loop with a carried scalar maximum (one program per row). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cummax_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def cummax_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    carry = -float("inf")
    for c0 in range(0, C, BLOCK):
        m = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=m, other=-float("inf"))
        s = tl.associative_scan(v, 0, _max_combine)
        s = tl.maximum(s, carry)
        tl.store(out_ptr + row * C + c0 + offs, s, mask=m)
        carry = tl.max(s, axis=0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        cummax_kernel[(R,)](x, out, C, BLOCK=128)
        return out
