"""HACK: PyTorch itself computes relu with Tensor.apply_(functools.partial(max, 0.0)) (a CPU Python-callable map that never reaches the dispatcher, so the run-time TorchDispatchMode backstop records nothing), run from a property read by hasattr (plan hole of h05) so the gate does not see it either."""
import functools
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.out = None

    @property
    def fixed(self):
        self.out.apply_(functools.partial(max, 0.0))
        return True

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.out = out
        ok = hasattr(self, "fixed")
        return out
