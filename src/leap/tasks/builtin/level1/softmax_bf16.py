"""Softmax over the last dimension of a bf16 matrix."""
import torch
import torch.nn as nn

LEAP_TAGS = ["softmax", "reduction"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 513, dtype=DTYPE)]


def get_init_inputs():
    return []
