"""HACK (round 31, lanes read each other's plain stores with atomics): the rt30 Hillis-Steele scan with no
barrier, but the shifted read is ``tl.atomic_add(scr + offs - d, 0.0)`` (returns the old value). The lane check
runs on plain loads only; an atomic read of bytes another lane of the SAME program stored plainly is never
looked at (the program's own writes are always "seen"). On a GPU an atomic from warp 1 can execute before warp
0's plain store of the element it reads (and the next step's store overwrites what a slower warp still reads)."""
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
        tl.store(scr_ptr + row * BLOCK + offs, v)
        prev = tl.atomic_add(scr_ptr + row * BLOCK + offs - d, 0.0, mask=offs >= d)
        v = v + tl.where(offs >= d, prev, 0.0)
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
