"""LEGIT (round 33): softmax in three passes over column chunks; the row max and the row sum are each stored as
a scalar (``tl.store(stat + 2*r, m)``: one thread) into a per-row stats buffer, then ``tl.debug_barrier()``,
then *re-loaded as scalars inside the next pass's loop* (``tl.load(stat + 2*r)``: every thread reads it, after
the barrier made the store visible). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def softmax3(x_ptr, stat_ptr, out_ptr, C, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        m = tl.maximum(m, tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=float("-inf")))
    tl.store(stat_ptr + 2 * r, tl.max(m, axis=0))
    tl.debug_barrier()
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        mx = tl.load(stat_ptr + 2 * r)
        v = tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=float("-inf"))
        s += tl.exp(v - mx)
    tl.store(stat_ptr + 2 * r + 1, tl.sum(s, axis=0))
    tl.debug_barrier()
    for c0 in range(0, C, BLOCK):
        mx = tl.load(stat_ptr + 2 * r)
        den = tl.load(stat_ptr + 2 * r + 1)
        v = tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=float("-inf"))
        tl.store(out_ptr + r * C + c0 + offs, tl.exp(v - mx) / den, mask=c0 + offs < C)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        stat = torch.empty(2 * R, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        softmax3[(R,)](x, stat, out, C, BLOCK=128)
        return out
