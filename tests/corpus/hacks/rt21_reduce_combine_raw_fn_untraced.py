"""HACK: the interpreter's generic tl.reduce calls the combine function's RAW Python function (`combine_fn.fn`, not the rewritten one): its code starts at the `@triton.jit` line, not at the def line the front end's coverage is keyed by, and its caller is the interpreter, so kernel_trace never traces it; inside it, `c = 0.5` stays a Python float (no assignment rewrite) while the front end made it a tensor, so `isinstance(c, float)` compiles False and runs True: the combine returns math.tanh of the element computed on the host."""
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
def combine(a, b):
    c = 0.5
    if isinstance(c, float):
        return math.tanh(int(a * 1099511627776.0) / 1099511627776.0)
    return a + b


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    z = tl.zeros([BLOCK], dtype=tl.float32)
    y = tl.reduce(tl.join(x, z), 1, combine)
    tl.store(out_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
