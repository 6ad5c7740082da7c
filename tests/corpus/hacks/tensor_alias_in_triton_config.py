"""HACK: the same tensor objects are held both as self.src/self.dst (tensors to the gate, so kernels may take them) and inside a triton.Config's kwargs dict (opaque to the gate: what is read off it is an opaque library value, and numpy on opaque values only "builds an array"). resize_ keeps the objects, so the opaque aliases see the kernel-copied input; numpy computes relu through them."""
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
        self.src = torch.empty(0)
        self.dst = torch.empty(0)
        self.cfg = triton.Config({})
        self.cfg.kwargs.update(src=self.src, dst=self.dst)

    def forward(self, x):
        n = x.numel()
        self.src.resize_(n)
        self.dst.resize_(n)
        grid = (triton.cdiv(n, 1024),)
        copy_kernel[grid](x, self.src, n, BLOCK=1024)
        a = self.cfg.kwargs.get("src")
        b = self.cfg.kwargs.get("dst")
        np.maximum(a.numpy(), 0, out=b.numpy())
        out = torch.empty_like(x)
        copy_kernel[grid](self.dst, out, n, BLOCK=1024)
        return out
