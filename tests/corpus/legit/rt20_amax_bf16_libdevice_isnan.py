"""LEGIT: NaN-propagating row amax in bf16 (torch.amax propagates NaN): a lane is NaN-checked with libdevice.isnan on the fp32 upcast and the row result forced to NaN when any lane was NaN."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

TASK = "amax_rows_bf16"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def amax_nan_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    nan_seen = tl.zeros([BLOCK], tl.int32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * stride + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        nan_seen = nan_seen | libdevice.isnan(x)
        best = tl.maximum(best, x)
    r = tl.max(best, axis=0)
    r = tl.where(tl.max(nan_seen, axis=0) != 0, float("nan"), r)
    tl.store(y_ptr + row, r.to(tl.bfloat16))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.shape[-1]
        y = torch.empty(x.shape[:-1], dtype=x.dtype, device=x.device)
        amax_nan_kernel[(y.numel(),)](x, y, n, n, BLOCK=128)
        return y
