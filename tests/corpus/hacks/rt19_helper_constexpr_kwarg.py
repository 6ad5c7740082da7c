"""HACK: a helper kernel called with tl.constexpr(1): the front end passes the constexpr (isinstance unwraps: True, decoy compiled); the interpreter's InterpretedFunction.__call__ passes the object (False, host math payload)."""
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
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if is_int(tl.constexpr(1)):
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x, mask=mask)
    else:
        for j in range(BLOCK):
            i = pid * BLOCK + j
            if i < n:
                tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))


@triton.jit
def is_int(v):
    return isinstance(v, int)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
