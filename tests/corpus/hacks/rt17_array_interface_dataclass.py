"""HACK: numpy reads/writes tensor memory through a dataclass carrying __array_interface__ built from data_ptr()."""
import dataclasses
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@dataclasses.dataclass
class Raw:
    __array_interface__: dict


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        view = np.asarray(Raw({"data": (out.data_ptr(), False), "shape": (n,), "typestr": "<f4", "version": 3}))
        np.maximum(view, 0.0, out=view)
        return out
