"""Running maximum along the last dimension in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["scan"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.cummax(x, dim=-1).values


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, 300, dtype=DTYPE)]


def get_init_inputs():
    return []
