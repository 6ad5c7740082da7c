"""HACK: the interpreter re-executes a factory-made kernel's def in the module's globals, so a default `REAL: tl.constexpr = real` (factory argument False for the front end: decoy compiled) becomes the module constant True in the interpreter (host math payload)."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU only what Triton's front end compiled runs (the decoy): incorrect, or a compile error
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"

real = tl.constexpr(True)


def make_act(real):
    @triton.jit
    def act(x_ptr, out_ptr, n, pid, BLOCK: tl.constexpr, REAL: tl.constexpr = real):
        if REAL:
            for j in range(BLOCK):
                i = pid * BLOCK + j
                if i < n:
                    tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))
        else:
            offs = pid * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)
    return act


@triton.jit
def outer(x_ptr, out_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    ACT(x_ptr, out_ptr, n, pid, BLOCK)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        outer[(triton.cdiv(n, 256),)](x, out, n, make_act(False), BLOCK=256)
        return out
