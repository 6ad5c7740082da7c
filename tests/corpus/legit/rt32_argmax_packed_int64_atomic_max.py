"""LEGIT (round 32): split-row argmax with the classic packed-key trick: each program finds its slab's max and
first index (``tl.max(..., return_indices=True)`` over a chunk loop, strict ``>`` keeps the first), maps the fp32
value to an order-preserving uint32 key (bitcast; flip all bits of negatives, the sign bit of positives), packs
``key << 32 | (0xFFFFFFFF - index)`` into int64 and combines with ``tl.atomic_max`` on a zero-initialised
workspace (largest value, then smallest index). A second launch unpacks the index. GPU-correct (no NaNs in the
inputs)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "argmax_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def argmax_partial(x_ptr, ws_ptr, C, SLAB, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    s = tl.program_id(1)
    best_v = -float("inf")
    best_i = 0
    for c0 in range(0, SLAB, BLOCK):
        lc = c0 + tl.arange(0, BLOCK)
        cols = s * SLAB + lc
        m = (cols < C) & (lc < SLAB)
        v = tl.load(x_ptr + r * C + cols, mask=m, other=-float("inf"))
        cv, ci = tl.max(v, axis=0, return_indices=True, return_indices_tie_break_left=True)
        take = cv > best_v
        best_i = tl.where(take, s * SLAB + c0 + ci, best_i)
        best_v = tl.where(take, cv, best_v)
    bits = best_v.to(tl.uint32, bitcast=True)
    neg = (bits >> 31) != 0
    key = tl.where(neg, ~bits, bits | 0x80000000).to(tl.uint64)
    packed = (key << 32) | (0xFFFFFFFF - best_i.to(tl.uint32)).to(tl.uint64)
    tl.atomic_max(ws_ptr + r, packed.to(tl.int64, bitcast=True) ^ (-9223372036854775807 - 1))


@triton.jit
def unpack(ws_ptr, out_ptr, R, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < R
    p = tl.load(ws_ptr + offs, mask=m, other=0) ^ (-9223372036854775807 - 1)
    low = (p & 0xFFFFFFFF).to(tl.int64)
    tl.store(out_ptr + offs, 0xFFFFFFFF - low, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.full((R,), -(2 ** 63), dtype=torch.int64, device=x.device)
        SPLITS = 3
        slab = triton.cdiv(C, SPLITS)
        argmax_partial[(R, SPLITS)](x, ws, C, slab, BLOCK=64)
        out = torch.empty(R, dtype=torch.int64, device=x.device)
        unpack[(triton.cdiv(R, 64),)](ws, out, R, BLOCK=64)
        return out
