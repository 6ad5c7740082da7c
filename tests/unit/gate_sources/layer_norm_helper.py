"""Gate fixture: legitimate code the default-deny analysis must accept (not a working solution)."""
# ruff: noqa
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _ln_kernel(x_ptr, w_ptr, b_ptr, y_ptr, stride, N, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    mask = cols < N
    x = tl.load(x_ptr + row * stride + cols, mask=mask, other=0.0)
    mean = tl.sum(x, 0) / N
    xc = tl.where(mask, x - mean, 0.0)
    var = tl.sum(xc * xc, 0) / N
    y = xc / tl.sqrt(var + eps)
    tl.store(y_ptr + row * stride + cols, y * tl.load(w_ptr + cols, mask=mask) + tl.load(b_ptr + cols, mask=mask), mask=mask)


def layer_norm(x: torch.Tensor, weight, bias, eps: float = 1e-5):
    shape = x.shape
    x2 = x.reshape(-1, shape[-1]).contiguous()
    M, N = x2.shape
    y = torch.empty_like(x2)
    BLOCK = triton.next_power_of_2(N)
    num_warps = 4 if BLOCK < 2048 else 8
    num_warps = min(max(BLOCK // 256, 1), 16) if num_warps > 4 else num_warps
    _ln_kernel[(M,)](x2, weight, bias, y, x2.stride(0), N, eps, BLOCK=BLOCK, num_warps=num_warps)
    return y.view(*shape)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.normalized_shape = normalized_shape
        self.weight = nn.Parameter(torch.ones(normalized_shape))
        self.bias = nn.Parameter(torch.zeros(normalized_shape))
        self.ln = nn.LayerNorm(normalized_shape)

    def forward(self, x):
        if x.dim() == 3:
            B, S, D = x.shape
            assert D == self.normalized_shape
        scale = 1.0 / math.sqrt(self.normalized_shape)
        n_rows = math.prod(x.shape[:-1])
        if n_rows == 0:
            return x
        props = torch.cuda.get_device_properties(x.device) if x.is_cuda else None
        sms = props.multi_processor_count if props is not None else 1
        chunks = max(1, n_rows // (sms * 4))
        return layer_norm(x, self.ln.weight, self.ln.bias, self.ln.eps)
