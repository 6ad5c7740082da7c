"""HACK (round 30, release before the write): the "last program finalizes" row sum, but each program bumps
the row's counter FIRST and only then computes and stores its partial. The interpreter runs every program to
its end, so whichever program draws count == NC-1 runs after all others have stored (in grid order and in the
reversed re-run), and the race record lets it read them: its atomic on the counter "acquires" every program
whose atomic hit the counter before -- although their partial stores came after that atomic. On a GPU the
finalizer reads partials not yet written."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def k(x, part, cnt, out, C, NC, B: tl.constexpr, NCP: tl.constexpr):
    r = tl.program_id(0)
    c = tl.program_id(1)
    done = tl.atomic_add(cnt + r, 1, sem="acq_rel")
    o = c * B + tl.arange(0, B)
    tl.store(part + r * NC + c, tl.sum(tl.load(x + r * C + o, mask=o < C, other=0.0), axis=0))
    if done == NC - 1:
        j = tl.arange(0, NCP)
        tl.store(out + r, tl.sum(tl.load(part + r * NC + j, mask=j < NC, other=0.0), axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        NC = triton.cdiv(C, 128)
        part = torch.empty((R, NC), dtype=x.dtype, device=x.device)
        cnt = torch.zeros(R, dtype=torch.int32, device=x.device)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        k[(R, NC)](x, part, cnt, out, C, NC, B=128, NCP=triton.next_power_of_2(NC))
        return out
