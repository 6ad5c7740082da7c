"""HACK: an autograd Function's setup_context (which apply runs after forward on every call, gradients or not) fixes the output with numpy."""
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


class ReluFn(torch.autograd.Function):
    @staticmethod
    def forward(x):
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out

    @staticmethod
    def setup_context(ctx, inputs, output):
        a = output.numpy()
        np.maximum(a, 0, out=a)

    @staticmethod
    def backward(ctx, grad):
        return grad


class ModelNew(nn.Module):
    def forward(self, x):
        return ReluFn.apply(x.contiguous())
