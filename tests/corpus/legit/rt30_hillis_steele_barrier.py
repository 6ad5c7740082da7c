"""LEGIT (round 30): Hillis-Steele prefix sum per row through the program's own scratch row, with
``tl.debug_barrier()`` after every store and after every load (the honest version of h07)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def hs_scan(x_ptr, out_ptr, scr_ptr, C, BLOCK: tl.constexpr, LOG: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    d = 1
    for _ in tl.static_range(LOG):
        tl.store(scr_ptr + row * BLOCK + offs, v)
        tl.debug_barrier()
        prev = tl.load(scr_ptr + row * BLOCK + offs - d, mask=offs >= d, other=0.0)
        tl.debug_barrier()
        v = v + prev
        d = d * 2
    tl.store(out_ptr + row * C + offs, v, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = triton.next_power_of_2(C)
        LOG = BLOCK.bit_length() - 1
        out = torch.empty_like(x)
        scr = torch.empty(R * BLOCK, dtype=x.dtype, device=x.device)
        hs_scan[(R,)](x, out, scr, C, BLOCK=BLOCK, LOG=LOG)
        return out
