"""LEGIT: launch settings grouped on a helper class: a staticmethod pre_hook that zeroes the accumulator, a
classmethod building the configs, and a grid staticmethod used through functools.partial."""
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


class Tuning:
    BLOCK = 128

    @staticmethod
    def zero(nargs):
        nargs["acc_ptr"].zero_()

    @classmethod
    def configs(cls):
        return [triton.Config({"BLOCK": cls.BLOCK}, num_warps=4, pre_hook=cls.zero)]

    @staticmethod
    def grid(rows, cols, meta):
        return (rows, triton.cdiv(cols, meta["BLOCK"]))


@triton.autotune(configs=Tuning.configs(), key=["cols"])
@triton.jit
def partial_sum_kernel(x_ptr, acc_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * stride + offs, mask=offs < cols, other=0.0)
    tl.atomic_add(acc_ptr + row, tl.sum(v, axis=0))


@triton.jit
def broadcast_kernel(acc_ptr, out_ptr, cols, stride, inv, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.load(acc_ptr + row) * inv
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(out_ptr + row * stride + offs, tl.zeros([BLOCK], tl.float32) + m, mask=offs < cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        acc = torch.empty(rows, dtype=torch.float32, device=x.device)
        partial_sum_kernel[functools.partial(Tuning.grid, rows, cols)](x, acc, cols, x.stride(0))
        out = torch.empty_like(x)
        broadcast_kernel[(rows,)](acc, out, cols, out.stride(0), 1.0 / cols, BLOCK=256)
        return out
