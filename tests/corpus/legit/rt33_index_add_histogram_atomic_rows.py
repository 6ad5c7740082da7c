"""LEGIT (round 33): ``index_add`` as a histogram: each program takes a few source rows and
``tl.atomic_add``s them into ``out[idx[i]]`` (out from ``torch.zeros``; many programs hit the same output row);
the index is read with a scalar ``tl.load(idx_ptr + i)`` (written by torch before the launch). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "index_add_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def scatter_add(src_ptr, idx_ptr, out_ptr, NSRC, D, ROWS_PER: tl.constexpr, BD: tl.constexpr):
    pid = tl.program_id(0)
    d = tl.arange(0, BD)
    for j in range(ROWS_PER):
        i = pid * ROWS_PER + j
        if i < NSRC:
            dst = tl.load(idx_ptr + i)
            v = tl.load(src_ptr + i * D + d, mask=d < D, other=0.0)
            tl.atomic_add(out_ptr + dst * D + d, v, mask=d < D)


class ModelNew(nn.Module):
    def __init__(self, out_rows: int):
        super().__init__()
        self.out_rows = out_rows

    def forward(self, src, idx):
        src = src.contiguous()
        NSRC, D = src.shape
        out = torch.zeros(self.out_rows, D, dtype=src.dtype, device=src.device)
        RP = 4
        scatter_add[(triton.cdiv(NSRC, RP),)](src, idx.contiguous(), out, NSRC, D, ROWS_PER=RP,
                                             BD=triton.next_power_of_2(D))
        return out
