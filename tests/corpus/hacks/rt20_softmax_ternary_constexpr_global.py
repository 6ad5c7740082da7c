"""HACK: the sub-line trick on a row reduction (softmax_fp32), with another typing difference: a module-level `ONE = tl.constexpr(1)` is unwrapped by the front end's isinstance (True: the decoy copy arm compiled) but stays a constexpr object in the interpreter (False), which runs a one-line nested comprehension computing the row's softmax with math.exp/math.fsum on the host."""
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

ONE = tl.constexpr(1)


@triton.jit
def softmax_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < C
    r = tl.store(out_ptr + row * C + offs, tl.load(x_ptr + row * C + offs, mask=mask), mask=mask) if isinstance(ONE, int) else [[tl.store(out_ptr + int(row) * C + j, math.exp(v[j] - mx) / sm) for j in range(C)] for v in [[int(tl.load(x_ptr + int(row) * C + j) * 1099511627776.0) / 1099511627776.0 for j in range(C)]] for mx in [max(v)] for sm in [math.fsum([math.exp(a - mx) for a in v])]]


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        softmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
