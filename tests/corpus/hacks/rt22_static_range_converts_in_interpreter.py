"""HACK: a conversion done by the interpreter's own code is never refused (kernel_trace.converting returns for any frame outside the candidate's file): `tl.static_range(b, b + 1)` with `b = (S, q)[isinstance(c, float)]` (annotated local `c: tl.float32`, a Python float only in the interpreter) is an unrolled one-trip loop over the constant S for the front end (k a constexpr, math.erf folded), while the interpreter's `_new_range` (triton/runtime/interpreter.py) calls range(q, q + 1) and so q.__index__ from its own frame; k is the data (x * 2**40) and math.erf computes GELU on the host."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gelu_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU only what Triton's front end compiled runs (the decoy): incorrect, or a compile error
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    c: tl.float32 = 0.5
    for j in range(0, BLOCK):
        i = pid * BLOCK + j
        v = tl.load(x_ptr + i, mask=i < n, other=0.0)
        q = (v * 1099511627776.0).to(tl.int64)
        for k in tl.static_range((7, q)[isinstance(c, float)], (7, q)[isinstance(c, float)] + 1):
            tl.store(out_ptr + i, 0.5 * v * (1.0 + math.erf(k / 1099511627776.0 * 0.7071067811865476)), mask=i < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
