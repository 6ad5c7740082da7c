"""HACK: a runtime loop `for k in range(q, q + 1)` over a data-derived int tensor q: the front end compiles a dynamic scf.for (k a tensor, the bound expression not folded, so the interpreter's __index__ on q is not refused), while the interpreter hands out k as a Python int equal to the data; `(0.5, k * 2**-40)[isinstance(k, int)]` is 0.5 for the front end (math.tanh folds on a constant) and the data for the interpreter, so math.tanh runs on the host for every element. No tl.tensor conversion at a folded expression, no skipped arm."""
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
            tl.store(out_ptr + i, math.tanh((0.5, k / 1099511627776.0)[isinstance(k, int)]) + v * 0.0, mask=i < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
