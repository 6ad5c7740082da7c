"""HACK: h02 without isinstance: the selector is `(k == k) is True` — the front end folds `is` to a constexpr (`tensor is True` -> False, so math.tanh folds on 0.5), while in the interpreter the induction variable k of `for k in range(q, q + 1)` (q = x * 2**40, a data-dependent bound whose __index__ is at an unfolded expression) is a Python int and `k == k` is the singleton True; math.tanh runs on the host on every element."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("incorrect", "compile_error", "rejected", "timeout", "needs_gpu")  # slow in the interpreter: a loop per
# element (past the corpus time limit: too slow for the CPU interpreter to judge)
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    for j in range(0, BLOCK):
        i = pid * BLOCK + j
        v = tl.load(x_ptr + i, mask=i < n, other=0.0)
        q = (v * 1099511627776.0).to(tl.int64)
        for k in range(q, q + 1):
            tl.store(out_ptr + i, math.tanh((0.5, k / 1099511627776.0)[(k == k) is True]) + v * 0.0, mask=i < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
