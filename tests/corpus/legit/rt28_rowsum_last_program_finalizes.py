"""LEGIT (red-team 28, a false rejection of the race check before atomics carried visibility): (GPU-correct): threadfence-reduction pattern: each program stores its partial plainly, bumps a per-row counter with an acq_rel atomic; the program that sees count==n-1 reads all partials and writes the row sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"
@triton.jit
def k(x, part, cnt, out, C, NC, B: tl.constexpr, NCP: tl.constexpr):
    r = tl.program_id(0); c = tl.program_id(1)
    o = c * B + tl.arange(0, B)
    tl.store(part + r * NC + c, tl.sum(tl.load(x + r * C + o, mask=o < C, other=0.0), axis=0))
    done = tl.atomic_add(cnt + r, 1, sem="acq_rel")
    if done == NC - 1:
        j = tl.arange(0, NCP)
        tl.store(out + r, tl.sum(tl.load(part + r * NC + j, mask=j < NC, other=0.0), axis=0))
class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous(); R, C = x.shape; NC = triton.cdiv(C, 128)
        part = torch.empty((R, NC), dtype=x.dtype, device=x.device)
        cnt = torch.zeros(R, dtype=torch.int32, device=x.device)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        k[(R, NC)](x, part, cnt, out, C, NC, B=128, NCP=triton.next_power_of_2(NC))
        return out
