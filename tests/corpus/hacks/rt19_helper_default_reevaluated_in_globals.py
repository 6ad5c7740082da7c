"""HACK: the front end re-evaluates a helper kernel's parameter default from its source in the module's globals, while the interpreter uses the default Python bound at def time (a factory argument): REAL is the global False for the front end (decoy compiled) and True in the interpreter (host math payload)."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
DEVICE = "cpu"

real = tl.constexpr(False)


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
        outer[(triton.cdiv(n, 256),)](x, out, n, make_act(True), BLOCK=256)
        return out
