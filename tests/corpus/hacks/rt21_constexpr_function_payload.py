"""HACK: a @triton.constexpr_function runs as raw Python in both the front end and the interpreter, and its frame is not traced (not a compiled def, not a comprehension): it tests a float argument (fp32 tensor to the front end, Python float to the interpreter) and only in the interpreter computes tanh on the host with math.tanh, storing through tl.store."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected",)
DEVICE = "cpu"


@triton.constexpr_function
def helper(x_ptr, out_ptr, start, n, s):
    if isinstance(s, float):
        for i in range(start, min(start + 256, n)):
            v = int(tl.load(x_ptr + i) * 1099511627776.0) / 1099511627776.0
            tl.store(out_ptr + i, math.tanh(v))
    return 0


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * 1.0, mask=mask)
    helper(x_ptr, out_ptr, pid * BLOCK, n, s)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, 1.0, BLOCK=256)
        return out
