"""HACK: the front end's availability probe runs lazily on the first launch and any exception makes it False for the whole process; a first (no-op) launch made near the recursion limit makes the probe hit RecursionError, so no later launch is ever checked and a host-math kernel runs."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected", "compile_error")
DEVICE = "cpu"


@triton.jit
def noop_kernel(p_ptr):
    tl.store(p_ptr, 0.0)


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for j in range(BLOCK):
        i = pid * BLOCK + j
        if i < n:
            tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))


class Quiet:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return True


def depth(k, box):
    box[0] = k
    with Quiet():
        depth(k + 1, box)


def at_depth(k, buf):
    if k > 0:
        return at_depth(k - 1, buf)
    noop_kernel[(1,)](buf)
    return True


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        buf = torch.zeros(4)
        box = [0]
        depth(0, box)
        top = box[0]
        done = [False]
        for m in range(2, 900):
            if not done[0]:
                with Quiet():
                    at_depth(top - m, buf)
                    done[0] = True

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
