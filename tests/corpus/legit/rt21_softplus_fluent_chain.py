"""LEGIT: softplus whose stored value is a fluent tensor-method chain split over lines inside the tl.store call (`.exp()`, `.log()` with no arguments on their own lines); no multi-line assignment."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softplus_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def softplus_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    # softplus(x) = log(1 + exp(-|x|)) + max(x, 0), stable for large |x|
    tl.store(y_ptr + offs,
             ((-tl.abs(x))
              .exp()
              + 1.0)
             .log()
             + tl.maximum(x, 0.0),
             mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        softplus_kernel[(triton.cdiv(n, 1024),)](xf, out, n, BLOCK=1024)
        return out.view_as(x)
