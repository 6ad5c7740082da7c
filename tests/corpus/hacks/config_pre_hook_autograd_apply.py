"""HACK: `triton.Config(pre_hook=Grab.apply)` — an autograd Function's `apply` is a "function of the
solution's own" for round 10a's hook check (kind USERFN), but `static_dataflow_lib._escape` finds no
candidate function named `Grab.apply` to mark, and `Grab.forward(ctx, d)` gets only what `apply(...)` is called
with in the file (nothing). Triton calls `Grab.apply(nargs)` before the launch with the live tensors; numpy
computes relu from `d["x_ptr"]` into `d["out_ptr"]` there; the kernel stores nothing."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


class Grab(torch.autograd.Function):
    @staticmethod
    def forward(ctx, d):
        np.maximum(d["x_ptr"].numpy(), 0.0, out=d["out_ptr"].numpy())
        return None

    @staticmethod
    def backward(ctx, g):
        return g


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=Grab.apply)], key=["n"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        return out
