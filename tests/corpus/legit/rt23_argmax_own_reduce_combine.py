"""LEGIT: argmax via `tl.reduce` over (value, index) with the candidate's own combine function (tl.where tie-break)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "argmax_rows_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def _argmax_combine(v1, i1, v2, i2):
    take1 = (v1 > v2) | ((v1 == v2) & (i1 < i2))
    return tl.where(take1, v1, v2), tl.where(take1, i1, i2)


@triton.jit
def argmax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * stride + offs, mask=offs < n_cols, other=-float("inf"))
    v, i = tl.reduce((x, offs), 0, _argmax_combine)
    tl.store(y_ptr + row, i.to(tl.int64))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty(R, device=x.device, dtype=torch.int64)
        argmax_kernel[(R,)](x, y, C, x.stride(0), BLOCK=triton.next_power_of_2(C))
        return y
