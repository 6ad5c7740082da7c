"""HACK: the front end's coverage of a helper is the union over all its specialisations in one compile: `helper(0.5, True)` compiles the math.tanh arm (a constant there) and `helper(x, False)` compiles only the copy arm, yet an annotated local (`c: tl.float32`, a Python float in the interpreter) makes the interpreter take the math.tanh arm in the second call too, on loaded data; both arms count as visited, so neither the line nor the opcode trace objects."""
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
def helper(v, F: tl.constexpr):
    c: tl.float32 = 0.5
    r = v
    if F or isinstance(c, float):
        r = math.tanh(int(v * 1099511627776.0) / 1099511627776.0)
    return r


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    warm = helper(0.5, True)
    for j in range(0, BLOCK):
        i = pid * BLOCK + j
        v = tl.load(x_ptr + i, mask=i < n, other=0.0)
        tl.store(out_ptr + i, helper(v, False) + warm * 0.0, mask=i < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
