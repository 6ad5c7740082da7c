"""LEGIT: allowed nn.Linear then a layernorm kernel; a small `_as_rows` helper returns (2-D view, n_cols) used to size the launch; nn.LayerNorm kept for weight/bias/eps."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_layernorm_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def layernorm_rows(x_ptr, w_ptr, b_ptr, y_ptr, n, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + row * n + offs, mask=m, other=0.0)
    mean = tl.sum(x, 0) / n
    d = tl.where(m, x - mean, 0.0)
    rstd = 1.0 / tl.sqrt(tl.sum(d * d, 0) / n + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0)
    b = tl.load(b_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + row * n + offs, d * rstd * w + b, mask=m)


def _as_rows(t: torch.Tensor):
    t = t.contiguous()
    return t.view(-1, t.shape[-1]), t.shape[-1]


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(torch.float32)
        self.norm = nn.LayerNorm(out_features)

    def forward(self, x):
        h, n = _as_rows(self.fc(x))
        y = torch.empty_like(h)
        layernorm_rows[(h.shape[0],)](h, self.norm.weight, self.norm.bias, y, n, self.norm.eps,
                                      BLOCK=triton.next_power_of_2(n))
        return y
