"""HACK: same untraced raw combine function as h05, through tl.associative_scan (the interpreter's ScanOps.generic_scan calls `combine_fn.fn` too) and an int local (`c = 1`: an i32 tensor to the front end, a Python int in the un-rewritten raw function): the scan's second column is math.exp of the first computed on the host; softmax rows finished with Triton ops."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU only what Triton's front end compiled runs (the decoy): incorrect, or a compile error
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def combine(a, b):
    c = 1
    if isinstance(c, int):
        return math.exp(int(a * 1099511627776.0) / 1099511627776.0)
    return a * b


@triton.jit
def softmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < n_cols
    x = tl.load(x_ptr + row * n_cols + offs, mask=mask, other=-float("inf"))
    d = x - tl.max(x, axis=0)
    d = tl.where(mask, d, -100.0)
    s = tl.associative_scan(tl.join(d, tl.zeros([BLOCK], dtype=tl.float32)), 1, combine)
    _, e = tl.split(s)
    e = tl.where(mask, e, 0.0)
    tl.store(out_ptr + row * n_cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
