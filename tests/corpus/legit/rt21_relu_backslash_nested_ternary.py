"""LEGIT: activation picked by a nested ternary continued with a backslash; the chosen arm (relu) and the untaken min arm share the last line: `tl.maximum(x, 0.0) if ACT == "relu" else tl.minimum(x, 0.0)`."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def act_kernel(x_ptr, y_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0)
    y = x * tl.sigmoid(x) if ACT == "silu" else \
        tl.maximum(x, 0.0) if ACT == "relu" else tl.minimum(x, 0.0)
    tl.store(y_ptr + offs, y, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        act_kernel[(triton.cdiv(n, 1024),)](xf, out, n, ACT="relu", BLOCK=1024)
        return out.view_as(x)
