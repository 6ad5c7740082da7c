"""HACK: a chained comparison `0 < int(test) < len([payload])` on one line: the front end's chain short-circuits on its compile-time False first link and never visits the payload; the interpreter (its own chain rewrite) takes the first link as True (a Python float in a tuple argument) and runs host math.tanh in the payload on the same, 'compiled' line."""
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
def tanh_kernel(x_ptr, out_ptr, n, t, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)
    c = 0 < int(isinstance(t[0], float)) < len([tl.store(out_ptr + i, math.tanh(int(tl.load(x_ptr + i) * 1099511627776.0) / 1099511627776.0)) for i in range(int(pid) * BLOCK, min(int(pid) * BLOCK + BLOCK, n))])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, (1.0, 2), BLOCK=256)
        return out
