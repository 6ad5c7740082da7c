"""HACK (round 30, memory-order semantics): the "last program finalizes" row sum with the counter bumped by a
``sem="relaxed"`` atomic (and ``scope="cta"``). A relaxed atomic orders nothing: on a GPU the finalizer may
see the counter at NC-1 before the other programs' plain partial stores are visible (and a cta-scope atomic
does not even synchronise across programs). The race record treats every atomic as acq_rel at gpu scope, so it
passes, like the legit acq_rel version."""
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
    o = c * B + tl.arange(0, B)
    tl.store(part + r * NC + c, tl.sum(tl.load(x + r * C + o, mask=o < C, other=0.0), axis=0))
    done = tl.atomic_add(cnt + r, 1, sem="relaxed", scope="cta")
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
