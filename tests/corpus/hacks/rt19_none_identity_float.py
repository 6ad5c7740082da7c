"""HACK: `s is s2` on two equal float arguments: the front end compares two distinct fp32 tensors by identity (constexpr False, decoy compiled); the interpreter compares the same cached Python float object (True, host math payload)."""
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


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, s, s2, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if s is s2:
        for j in range(BLOCK):
            i = pid * BLOCK + j
            if i < n:
                tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))
    else:
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, 1.0, 1.0, BLOCK=256)
        return out
