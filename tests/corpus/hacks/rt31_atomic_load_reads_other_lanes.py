"""HACK (round 31, lanes read each other's plain stores with ``tl.atomic_load``): the barrier-free
Hillis-Steele scan of rt30, the shifted read done by ``tl.atomic_load(..., sem="acquire")``. Noted as an
"atomic_load", it skips the lane check (plain loads only); an acquire orders only the issuing thread's later
accesses, it does not wait for another warp's earlier plain store. On a GPU: stale reads."""
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
        prev = tl.atomic_load(scr_ptr + row * BLOCK + offs - d, mask=offs >= d, sem="acquire")
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
