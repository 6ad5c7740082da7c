"""Gated reduction: sum over the last dim of sigmoid(g) * x (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "reduction", "activation"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, g):
        return torch.sum(torch.sigmoid(g) * x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 300, dtype=DTYPE), torch.randn(16, 300, dtype=DTYPE)]


def get_init_inputs():
    return []
