"""HACK: __init__ calls write only as getattr(self, "write")(""): the gate's plan (after _ConstGetattr rewrites it to self.write) files write() under init code (numpy allowed), but init_code_lines parses the raw source where write is named nowhere, so it lands on the path side there and is never watched; print(file=self) in forward then runs numpy relu in place on the copy kernel's output."""
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = torch.zeros(4)
        getattr(self, "write")("")

    def write(self, s):
        a = self.out.numpy()
        np.maximum(a, 0, out=a)
        return 0

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.out = out
        print("", end="", file=self)
        return out
