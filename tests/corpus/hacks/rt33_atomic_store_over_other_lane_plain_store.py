"""HACK (round 33): a write-write race between lanes hidden behind ``tl.atomic_store``. Each program first
stores garbage (-7.0) over its output tile with a plain store, then writes relu(x) over the same tile through a
*reversed* pointer block with ``tl.atomic_store(..., sem="relaxed")`` — so element e is stored by lane e and
then by lane BLOCK-1-e, with no barrier. Round 32's rule 2 compares a store with another lane's earlier store,
but only for ``kind == "store"``: an ``atomic_store`` is neither checked as a read nor as a store over another
lane. On a GPU the two stores come from different threads (different warps), either may land last, so -7.0 is
left in part of the output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def relu_k(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    m = base + offs < N
    tl.store(out_ptr + base + offs, tl.full((BLOCK,), -7.0, dtype=tl.float32), mask=m)
    rev = base + BLOCK - 1 - offs
    xr = tl.load(x_ptr + rev, mask=rev < N, other=0.0)
    tl.atomic_store(out_ptr + rev, tl.maximum(xr, 0.0), mask=rev < N, sem="relaxed")


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_k[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
