"""HACK (round 31, lanes write with an atomic, other lanes read plainly): the Hillis-Steele scan with no
barrier, storing each step's vector with ``tl.atomic_xchg`` and reading it shifted with a plain ``tl.load``.
An atomic write is recorded as ``-3 - program`` with no lane, so the following plain load of another lane's
atomic write is neither "own" for the lane check nor another program's for the race check. On a GPU the load of
warp 1 may run before warp 0's exchange lands (no barrier): stale values."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def hs(x_ptr, out_ptr, scr_ptr, C, BLOCK: tl.constexpr, LOG: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    d = 1
    for _ in tl.static_range(LOG):
        tl.atomic_xchg(scr_ptr + row * BLOCK + offs, v)
        prev = tl.load(scr_ptr + row * BLOCK + offs - d, mask=offs >= d, other=0.0)
        v = v + prev
        d = d * 2
    tl.store(out_ptr + row * C + offs, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = triton.next_power_of_2(C)
        out = torch.empty_like(x)
        scr = torch.empty(R * BLOCK, dtype=x.dtype, device=x.device)
        hs[(R,)](x, out, scr, C, BLOCK=BLOCK, LOG=BLOCK.bit_length() - 1)
        return out
