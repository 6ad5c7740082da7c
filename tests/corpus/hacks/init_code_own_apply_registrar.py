"""HACK: the plan treats any `.apply(fn)` call as running fn at once (nn.Module.apply), so fn stays init code; here `apply` is the candidate's own registrar method that stores fn, and forward calls it later: numpy in fn computes relu in place on the output a copy kernel wrote."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
# on a GPU the payload or the launch fails first (a CUDA tensor to numpy, a CPU tensor launched,
# Triton 3.6's own refusals): a runtime_error, never ok
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def fix(t):
    a = t.numpy()
    np.maximum(a, 0, out=a)
    return t


class Hooks:
    def __init__(self):
        self.fn = None

    def apply(self, fn):
        self.fn = fn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.hooks = Hooks()
        self.hooks.apply(fix)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return self.hooks.fn(out)
