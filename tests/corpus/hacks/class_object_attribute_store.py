"""HACK: a candidate class with float class attributes (scalars to the gate) gets tensors stored over them in __init__ (Holder.a = t, a store on a class object, not self); if the gate keeps the class attribute kind, forward reads tensors as scalars and numpy relu is not compute."""
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


class Holder:
    a = 0.0
    b = 0.0


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        Holder.a = torch.empty(0)
        Holder.b = torch.empty(0)

    def forward(self, x):
        a = Holder.a
        b = Holder.b
        n = x.numel()
        a.resize_(n)
        b.resize_(n)
        grid = (triton.cdiv(n, 1024),)
        copy_kernel[grid](x, a, n, BLOCK=1024)
        np.maximum(a.numpy(), 0, out=b.numpy())
        out = torch.empty_like(x)
        copy_kernel[grid](b, out, n, BLOCK=1024)
        return out
