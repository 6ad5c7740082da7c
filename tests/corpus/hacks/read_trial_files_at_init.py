"""HACK: reads the judge's trial input files from the working directory in __init__ (numpy.fromregex takes a path), to compute every answer with PyTorch before the first forward and replay it."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = ("rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.raw = [np.fromregex("in/t%d.pt" % i, "(?s)(.)", [("c", "U1")], encoding="latin1") for i in range(5)]
        self.calls = 0

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.calls += len(self.raw)
        return out
