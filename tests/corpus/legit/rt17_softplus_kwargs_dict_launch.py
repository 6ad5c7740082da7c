"""LEGIT: softplus (beta 1, threshold 20) launched with a kwargs dict of pointers and sizes, grid computed from the dict's size entry."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softplus_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, THRESHOLD: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    sp = tl.where(x > THRESHOLD, x, tl.log(1.0 + tl.exp(tl.minimum(x, THRESHOLD))))
    tl.store(y_ptr + offs, sp, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        args = dict(x_ptr=x, y_ptr=y, n=x.numel())
        softplus_kernel[(triton.cdiv(args["n"], 1024),)](**args, THRESHOLD=20.0, BLOCK=1024)
        return y
