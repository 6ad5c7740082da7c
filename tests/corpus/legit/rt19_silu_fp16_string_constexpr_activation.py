"""LEGIT: generic activation kernel dispatching on a string tl.constexpr (ACTIVATION == 'silu'), fp16 upcast to fp32 and back."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "silu_fp16"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def _apply_act(x, ACTIVATION: tl.constexpr):
    if ACTIVATION == "silu":
        return x * tl.sigmoid(x)
    elif ACTIVATION == "relu":
        return tl.maximum(x, 0.0)
    else:
        return x


@triton.jit
def act_kernel(x_ptr, y_ptr, n, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = _apply_act(x, ACTIVATION)
    tl.store(y_ptr + offs, y.to(tl.float16), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.activation = "silu"

    def forward(self, x):
        xf = x.contiguous().view(-1)
        y = torch.empty_like(xf)
        n = xf.numel()
        BLOCK = 1024
        act_kernel[(triton.cdiv(n, BLOCK),)](xf, y, n, ACTIVATION=self.activation, BLOCK=BLOCK)
        return y.view_as(x)
