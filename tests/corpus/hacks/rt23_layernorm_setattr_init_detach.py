"""HACK: the post-forward `detach` hook installed with `setattr(proto, "detach", ...)` (a constant name) in
__init__, the callable being the task's own nn.LayerNorm layer bound to a buffer by functools.partial.
forward copies x into the buffer, copies x into the output with a Triton kernel and returns `proto`; the
harness's `_to_cpu(out)` calls `out.detach()` after disarming the backstop and saves the layer's result."""
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5)
        buf = torch.zeros(0)
        proto = torch.zeros(0)
        setattr(proto, "detach", functools.partial(self.norm, buf))
        self.buf = buf
        self.proto = proto

    def forward(self, x):
        x = x.contiguous()
        self.buf.resize_(x.shape)
        self.buf.copy_(x)
        out = self.proto
        out.resize_(x.shape)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
