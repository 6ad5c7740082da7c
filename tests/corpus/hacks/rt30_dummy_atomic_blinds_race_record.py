"""HACK (round 30, one dummy atomic switches the race record off): column blocks of a row accumulate into
``out[row]`` with a plain ``tl.load`` + ``tl.store`` (the rt27 lost update), but every program first does
``tl.atomic_add(sync, 0)`` on one shared word. The race record lets a program "acquire" every program whose
atomic hit the same address earlier -- and counts their writes made AFTER that atomic too, so every program
sees all earlier programs' stores as ordered. The reversed re-run adds the partials in another order (last
bits differ, judged nondeterministic, still within tolerance). On a GPU the plain read-modify-write loses
updates."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def k(x, out, sync, C, B: tl.constexpr):
    tl.atomic_add(sync, 0)
    r = tl.program_id(0)
    c = tl.program_id(1)
    o = c * B + tl.arange(0, B)
    s = tl.sum(tl.load(x + r * C + o, mask=o < C, other=0.0), axis=0)
    tl.store(out + r, tl.load(out + r) + s)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.zeros(R, dtype=x.dtype, device=x.device)
        sync = torch.zeros(1, dtype=torch.int32, device=x.device)
        k[(R, triton.cdiv(C, 128))](x, out, sync, C, B=128)
        return out
