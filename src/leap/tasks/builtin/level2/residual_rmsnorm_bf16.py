"""Residual add then RMSNorm with a learned scale (bf16)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "norm", "residual"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 32768, 2048


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.weight = nn.Parameter((1.0 + 0.1 * torch.randn(cols)).to(DTYPE))

    def forward(self, x, res):
        h = x + res
        h32 = h.float()
        out = h32 * torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + 1e-6)
        return (out * self.weight.float()).to(x.dtype)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE), torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
