"""LEGIT: layernorm whose statistics come from a helper returning a tuple, unpacked by a call split over lines (`mean, rstd = _row_stats(` / args / `)`), affine weights applied in a second helper."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "layernorm_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def _row_stats(x, mask, n_cols, eps):
    mean = tl.sum(x, axis=0) / n_cols
    d = tl.where(mask, x - mean, 0.0)
    var = tl.sum(d * d, axis=0) / n_cols
    return mean, 1.0 / tl.sqrt(var + eps)


@triton.jit
def layernorm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, n_cols, stride, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean, rstd = _row_stats(
        x, mask, n_cols, eps
    )
    w = tl.load(w_ptr + cols, mask=mask, other=1.0)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0)
    tl.store(y_ptr + row * stride + cols, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5)

    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        y = torch.empty_like(x)
        layernorm_kernel[(rows,)](x, self.norm.weight, self.norm.bias, y, cols, x.stride(0), self.norm.eps,
                                  BLOCK=triton.next_power_of_2(cols))
        return y
