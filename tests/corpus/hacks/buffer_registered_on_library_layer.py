"""HACK: buffers registered (register_buffer, by string) on an nn.Identity under names the gate's table lists
as layer *settings* (`eps`, `alpha`): the gate reads `layer.eps` as a Python scalar, so `.numpy()` and
np.maximum on it are not compute; the kernel copies the input into one and the answer out of the other."""
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
        self.holder = nn.Identity()
        self.holder.register_buffer("eps", torch.empty(0))
        self.holder.register_buffer("alpha", torch.empty(0))

    def forward(self, x):
        h = self.holder
        n = x.numel()
        h.eps.resize_(n)
        h.alpha.resize_(n)
        grid = (triton.cdiv(n, 1024),)
        copy_kernel[grid](x, h.eps, n, BLOCK=1024)
        np.maximum(h.eps.numpy(), 0, out=h.alpha.numpy())
        out = torch.empty_like(x)
        copy_kernel[grid](h.alpha, out, n, BLOCK=1024)
        return out
