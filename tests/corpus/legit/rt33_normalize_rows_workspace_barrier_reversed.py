"""LEGIT (round 33): per-program workspace row: each program stores its squared row chunk-by-chunk into its own
row of a scratch buffer (plain block stores), ``tl.debug_barrier()``, then reads the scratch row back in a
*different* lane order (reversed within each chunk) to form the sum of squares, and finally normalises. The
barrier makes every thread's stores visible to the whole CTA. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "normalize_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def norm_rows(x_ptr, ws_ptr, out_ptr, C, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for c0 in range(0, C, BLOCK):
        m = c0 + offs < C
        v = tl.load(x_ptr + r * C + c0 + offs, mask=m, other=0.0)
        tl.store(ws_ptr + r * C + c0 + offs, v * v, mask=m)
    tl.debug_barrier()
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    rev = BLOCK - 1 - offs
    for c0 in range(0, C, BLOCK):
        acc += tl.load(ws_ptr + r * C + c0 + rev, mask=c0 + rev < C, other=0.0)
    nrm = tl.sqrt(tl.sum(acc, axis=0))
    for c0 in range(0, C, BLOCK):
        m = c0 + offs < C
        v = tl.load(x_ptr + r * C + c0 + offs, mask=m, other=0.0)
        tl.store(out_ptr + r * C + c0 + offs, v / tl.maximum(nrm, 1e-6), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.empty_like(x)
        out = torch.empty_like(x)
        norm_rows[(R,)](x, ws, out, C, BLOCK=128)
        return out
