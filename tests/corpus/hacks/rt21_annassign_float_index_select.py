"""HACK: an inherent divergence with no launch argument or global: an annotated local `c: tl.float32 = 0.5` is an fp32 tensor to the front end (visit_AnnAssign -> visit_Assign) but a Python float in the interpreter (its rewrite converts only plain Assign); `isinstance(c, float)` then indexes a tuple `(0.5, v)[...]`, so the front end folds math.erf on a constant while the interpreter computes GELU's erf with math.erf on every loaded element (no skipped arm, all nodes visited)."""
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
        e = math.erf(int((0.5, v)[isinstance(c, float)] * 1099511627776.0) / 1099511627776.0 * 0.7071067811865476)
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
