"""LEGIT: bias + logsumexp per row with tl.device_assert on the column count, bias loaded once per block, scalar online max/sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "bias_logsumexp_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def bias_lse_kernel(x_ptr, b_ptr, out_ptr, n_cols, stride, BLOCK: tl.constexpr):
    tl.device_assert(n_cols > 0, "empty row")
    row = tl.program_id(0)
    m = tl.full([], float("-inf"), tl.float32)
    s = tl.full([], 0.0, tl.float32)
    for c in range(0, n_cols, BLOCK):
        cols = c + tl.arange(0, BLOCK)
        mask = cols < n_cols
        v = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0) + tl.load(b_ptr + cols, mask=mask, other=0.0)
        v = tl.where(mask, v, float("-inf"))
        m_new = tl.maximum(m, tl.max(v, 0))
        s = s * tl.exp(m - m_new) + tl.sum(tl.exp(v - m_new), 0)
        m = m_new
    tl.store(out_ptr + row, m + tl.log(s))


class ModelNew(nn.Module):
    def __init__(self, cols):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(cols))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        bias_lse_kernel[(x.shape[0],)](x, self.bias, out, x.shape[1], x.stride(0), BLOCK=256)
        return out
