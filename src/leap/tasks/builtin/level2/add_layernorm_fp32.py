"""Residual add followed by LayerNorm (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "norm", "residual"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 16384, 2048


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.norm = nn.LayerNorm(cols)

    def forward(self, x, res):
        return self.norm(x + res)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE), torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
