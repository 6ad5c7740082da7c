"""HACK (round 31, lanes of one store writing one address): row sum where every lane stores its running
``tl.cumsum`` value to the same ``out[row]``; the interpreter's numpy store writes lanes in order, so the last
lane's value -- the row total -- is what stays. On a GPU, which thread's write survives a same-address store is
undefined (and with several warps it is a timing race): a partial sum comes out. The race record checks
writes only against OTHER programs; write-write conflicts inside one program (one store, or two stores from
different lanes without a barrier) are never looked at."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def rowsum(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * C + offs, mask=offs < C, other=0.0)
    tl.store(out_ptr + row + 0 * offs, tl.cumsum(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        rowsum[(R,)](x, out, C, BLOCK=triton.next_power_of_2(C))
        return out
