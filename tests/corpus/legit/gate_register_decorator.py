"""LEGIT: own registering decorator that returns f unchanged."""
import functools
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


REG = {}


def register(f):
    REG[f.__name__] = f
    return f


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(v, 0.0), mask=mask)


@register
def relu(x):
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        return relu(x)
