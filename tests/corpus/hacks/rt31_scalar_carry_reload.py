"""HACK (round 31, a scalar load of another lane's store, no barrier): chunked per-row prefix sum. Each chunk
is scanned with ``tl.cumsum``, stored to ``out``, and the carry for the next chunk is read back as a SCALAR
``tl.load(out + last)`` -- the element the chunk's last lane (on a GPU: a thread of the last warp) just stored.
No ``tl.debug_barrier()`` between store and load: on a GPU warp 0 can load ``out[last]`` before warp 3's store
is visible (stale value of ``torch.empty`` memory -> wrong carry for every later chunk). The race record's lane
check treats a scalar access as "every lane's" (lane -1) and never flags it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


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
        last = tl.minimum(c0 + BLOCK, C) - 1
        carry = tl.load(out_ptr + row * C + last)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        scan[(R,)](x, out, C, BLOCK=128)
        return out
