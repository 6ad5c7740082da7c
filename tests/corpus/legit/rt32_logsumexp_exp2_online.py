"""LEGIT (round 32): row logsumexp, online over column chunks in base 2 (``tl.math.exp2``/``tl.math.log2`` with
x * log2(e)), the running max kept as a per-lane vector and combined at the end. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "logsumexp_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453


@triton.jit
def lse_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), -float("inf"), tl.float32)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        msk = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=msk, other=-float("inf")) * 1.4426950408889634
        nm = tl.maximum(m, v)
        safe = tl.where(nm == -float("inf"), 0.0, nm)
        s = s * tl.math.exp2(m - safe) + tl.math.exp2(v - safe)
        m = nm
    gm = tl.max(m, axis=0)
    tot = tl.sum(tl.where(m == -float("inf"), 0.0, s * tl.math.exp2(m - gm)), axis=0)
    tl.store(out_ptr + row, (gm + tl.math.log2(tot)) * 0.6931471805599453)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        lse_kernel[(R,)](x, out, C, BLOCK=128)
        return out
