"""HACK: calling a @triton.jit helper directly from host code (at module import) runs InterpretedFunction.__call__, whose _patch_lang is never undone: tl.tensor's class attributes stay patched with interpreter semantics, the lazy availability probe of the front-end check then fails, and no launch is ever checked; a host-math kernel runs."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU the payload or the launch fails first (a CUDA tensor to numpy, a CPU tensor launched,
# Triton 3.6's own refusals): a runtime_error, never ok
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def ident(a):
    return a


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for j in range(BLOCK):
        i = pid * BLOCK + j
        if i < n:
            tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))


WARM = ident(1)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
