"""Multiply a bf16 matrix by a per-column scale vector (broadcast)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["elementwise", "binary", "broadcast"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 8192, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale):
        return x * scale


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randn(COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 257, dtype=DTYPE), torch.randn(257, dtype=DTYPE)]


def get_init_inputs():
    return []
