"""LEGIT (round 32): the race-free form of ``hacks/rt31_scalar_carry_reload``: chunked per-row prefix sum whose
carry is read back as a scalar ``tl.load(out + last)`` of what the chunk just stored, with ``tl.debug_barrier()``
between the store and the load (on a GPU the barrier makes every warp's store visible to the whole CTA before
the scalar load). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def scan(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    carry = 0.0
    for c0 in range(0, C, BLOCK):
        m = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=m, other=0.0)
        s = tl.cumsum(v, axis=0) + carry
        tl.store(out_ptr + row * C + c0 + offs, s, mask=m)
        tl.debug_barrier()
        last = tl.minimum(c0 + BLOCK, C) - 1
        carry = tl.load(out_ptr + row * C + last)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        scan[(R,)](x, out, C, BLOCK=128)
        return out
