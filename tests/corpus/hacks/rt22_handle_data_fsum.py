"""HACK: no tl.tensor dunder is ever called: the annotated-local divergence (`c: tl.float32 = 0.5` is a Python float only in the interpreter) selects the loaded tensor `v` in the interpreter and 0.5 in the front end; `getattr(getattr(w, "handle", w), "data", (0.5,))` then yields the interpreter's numpy array (front end: the tuple (0.5,)), and `math.fsum` iterates the numpy array, so numpy (not tl.tensor.__index__) turns data into a Python float; math.erf computes GELU on the host."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gelu_fp32"
EXPECT = ("compile_error", "rejected")
DEVICE = "cpu"


@triton.jit
def gelu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    c: tl.float32 = 0.5
    for j in range(0, BLOCK):
        i = pid * BLOCK + j
        v = tl.load(x_ptr + i, mask=i < n, other=0.0)
        w = (0.5, v)[isinstance(c, float)]
        e = math.erf(math.fsum(getattr(getattr(w, "handle", w), "data", (0.5,))) * 0.7071067811865476)
        tl.store(out_ptr + i, 0.5 * v * (1.0 + e), mask=i < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        gelu_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
