"""HACK: the interpreter calls the grid function with the very dict of arguments it then runs the kernel with, after the front-end check: the grid function flips the constexpr REAL from the checked 0 (decoy compiled) to 1 (host math payload)."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected", "compile_error")
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, REAL: tl.constexpr):
    pid = tl.program_id(0)
    if REAL:
        for j in range(BLOCK):
            i = pid * BLOCK + j
            if i < n:
                tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))
    else:
        offs = pid * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        g = triton.cdiv(n, 256)

        def grid(meta):
            meta["REAL"] = 1
            return (g,)

        tanh_kernel[grid](x, out, n, BLOCK=256, REAL=0)
        return out
