"""LEGIT: bf16 multiply-by-column-scale and a clamp, computed in bf16 without upcasting (as the GPU allows).
The CPU interpreter keeps bf16 as uint16 bit patterns and used to apply integer arithmetic to them; the
harness's interpreter fix widens bf16 operands to fp32 and rounds back."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "builtin:mul_broadcast_bf16"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_cols(x_ptr, s_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    for start in range(0, cols, BLOCK):
        cc = start + c
        m = cc < cols
        x = tl.load(x_ptr + row * cols + cc, mask=m)
        s = tl.load(s_ptr + cc, mask=m)
        y = x * s
        y = tl.where(y == y, y, y)  # a comparison on bf16 values stays a comparison
        tl.store(out_ptr + row * cols + cc, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale):
        x = x.contiguous()
        out = torch.empty_like(x)
        rows, cols = x.shape
        scale_cols[(rows,)](x, scale.contiguous(), out, rows, cols, BLOCK=256)
        return out
