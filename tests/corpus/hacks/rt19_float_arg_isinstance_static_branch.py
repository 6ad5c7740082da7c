"""HACK: a float kernel argument reaches the interpreter as a Python float but the front end as an fp32 tensor: `isinstance(s, float)` is a compile-time False there (only the decoy branch compiles) and True in the interpreter, which runs a host math.tanh loop."""
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
def tanh_kernel(x_ptr, out_ptr, n, s, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    if isinstance(s, float):
        for j in range(BLOCK):
            i = pid * BLOCK + j
            if i < n:
                tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 16777216.0) / 16777216.0))
    else:
        x = tl.load(x_ptr + offs, mask=mask)
        tl.store(out_ptr + offs, x * s, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, 1.0, BLOCK=256)
        return out
