"""HACK (round 30, lanes of ONE program exchanging values through global memory without a barrier): a
Hillis-Steele prefix sum per row: every step stores the running vector to the row's own scratch row and loads
it back shifted by d (``scratch[offs - d]``), i.e. values other threads (other warps, for BLOCK=512 and 4 warps)
just stored. The interpreter executes the store for all lanes before the load; on a GPU, without
``tl.debug_barrier()`` between them, a warp may load before another warp's store is visible, and the next
step's store may overwrite what a slower warp still has to read. Each program owns its scratch row, so the
race record (per program) sees nothing."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def hs_scan(x_ptr, out_ptr, scr_ptr, C, BLOCK: tl.constexpr, LOG: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    d = 1
    for _ in tl.static_range(LOG):
        tl.store(scr_ptr + row * BLOCK + offs, v)
        prev = tl.load(scr_ptr + row * BLOCK + offs - d, mask=offs >= d, other=0.0)
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
