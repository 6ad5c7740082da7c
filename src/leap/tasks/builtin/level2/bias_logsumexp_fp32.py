"""Bias add then log-sum-exp over the last dimension (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "reduction"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 131072, 1024


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.bias = nn.Parameter(torch.randn(cols))

    def forward(self, x):
        return torch.logsumexp(x + self.bias, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
