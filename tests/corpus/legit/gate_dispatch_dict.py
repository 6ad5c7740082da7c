"""LEGIT (gate launch style): kernels kept in a dispatch dict, picked by a name set in __init__."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


KERNELS = {'relu': relu_kernel, 'copy': copy_kernel}


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kind = 'relu'

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        KERNELS[self.kind][(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
