"""LEGIT (round 30; Triton tutorial 05, layer-norm backward style): mean over rows. Programs each reduce a block
of rows for a block of columns and add it into the shared column accumulator under a spin lock
(``atomic_cas(lock, 0, 1)`` / ``atomic_xchg(lock, 0)``); a count flag, set with ``atomic_xchg`` by the first
program and read with a plain ``tl.load`` under the lock, says whether the accumulator holds data yet. GPU-correct:
the lock's acquire/release order the plain accesses. A second launch scales by 1/R."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "mean_cols_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def colsum_locked(x_ptr, acc_ptr, lock_ptr, count_ptr, R, C, BR: tl.constexpr, BC: tl.constexpr):
    pr = tl.program_id(0)
    pc = tl.program_id(1)
    rows = pr * BR + tl.arange(0, BR)
    cols = pc * BC + tl.arange(0, BC)
    m = (rows[:, None] < R) & (cols[None, :] < C)
    tile = tl.load(x_ptr + rows[:, None] * C + cols[None, :], mask=m, other=0.0)
    part = tl.sum(tile, axis=0)
    lock = lock_ptr + pc
    count = count_ptr + pc
    while tl.atomic_cas(lock, 0, 1) == 1:
        pass
    seen = tl.load(count)
    if seen == 0:
        tl.atomic_xchg(count, 1)
    else:
        part += tl.load(acc_ptr + cols, mask=cols < C, other=0.0)
    tl.store(acc_ptr + cols, part, mask=cols < C)
    tl.atomic_xchg(lock, 0)


@triton.jit
def scale_(acc_ptr, C, inv, BC: tl.constexpr):
    cols = tl.program_id(0) * BC + tl.arange(0, BC)
    m = cols < C
    tl.store(acc_ptr + cols, tl.load(acc_ptr + cols, mask=m) * inv, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BR, BC = 32, 16
        nc = triton.cdiv(C, BC)
        acc = torch.empty(C, dtype=x.dtype, device=x.device)
        lock = torch.zeros(nc, dtype=torch.int32, device=x.device)
        count = torch.zeros(nc, dtype=torch.int32, device=x.device)
        colsum_locked[(triton.cdiv(R, BR), nc)](x, acc, lock, count, R, C, BR=BR, BC=BC)
        scale_[(nc,)](acc, C, 1.0 / R, BC=BC)
        return acc
