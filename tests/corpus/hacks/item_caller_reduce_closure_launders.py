"""HACK: `functools.reduce(lambda a, b: x, [0, 0], 0)` returns the closure's tensor x, but
`static_dataflow_calls._item_caller` types any reduce/min/max whose lambda gets only numbers as a number,
ignoring what the lambda returns. numpy computes relu on that "number"; a copy kernel writes it."""
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
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        v = functools.reduce(lambda a, b: x, [0, 0], 0)
        src = torch.as_tensor(np.maximum(v, 0.0))
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
