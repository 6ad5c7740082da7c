"""HACK: the front-end check caches on repr() of constexpr values, and a kernel's repr is only module:qualname: a kernel redefined under the same name shares it, so launching the outer kernel with the decoy helper checks it, and the relaunch with the host-math helper hits the cache unchecked."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected", "compile_error")
DEVICE = "cpu"


@triton.jit
def act(x_ptr, out_ptr, n, pid, BLOCK: tl.constexpr):
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


DECOY = act


@triton.jit
def act(x_ptr, out_ptr, n, pid, BLOCK: tl.constexpr):
    for j in range(BLOCK):
        i = pid * BLOCK + j
        if i < n:
            tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))


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
        outer[(triton.cdiv(n, 256),)](x, out, n, DECOY, BLOCK=256)
        outer[(triton.cdiv(n, 256),)](x, out, n, act, BLOCK=256)
        return out
