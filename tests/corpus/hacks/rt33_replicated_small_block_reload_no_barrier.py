"""HACK (round 33): a reload that the judge sees as same-lane but a GPU runs on *other threads*. Each program
normalises 2 rows: it stores the two row norms through a 2-element pointer block (``ws + rows``), reloads them
through the same block with no barrier, and divides its [2, 256] tile by them. The race record's lane is the
position in the block (store lane i, load lane i: no race). On a GPU a 2-element tensor of a 4-warp program is
*replicated*: every one of the 128 threads holds a copy, the store is issued by one thread per element (Triton
masks redundant stores) but the load by all 128 (checked in the sm_90 PTX here: predicated ``st.global`` vs an
unpredicated ``ld.global``), and each thread divides its own tile elements by its own loaded copy — threads of
other warps can load before the owner's store lands and read ``torch.empty`` garbage -> wrong rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "normalize_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def norm2(x_ptr, ws_ptr, out_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    rows = tl.program_id(0) * BR + tl.arange(0, BR)
    cols = tl.arange(0, BC)
    m = (rows[:, None] < R) & (cols[None, :] < C)
    x = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=m, other=0.0)
    nrm = tl.maximum(tl.sqrt(tl.sum(x * x, axis=1)), 1e-6)
    tl.store(ws_ptr + rows, nrm, mask=rows < R)
    back = tl.load(ws_ptr + rows, mask=rows < R, other=1.0)
    tl.store(out_ptr + rows[:, None] * C + cols[None, :], x / back[:, None], mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.empty(R, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        norm2[(triton.cdiv(R, 2),)](x, ws, out, R, C, BR=2, BC=triton.next_power_of_2(C), num_warps=4)
        return out
