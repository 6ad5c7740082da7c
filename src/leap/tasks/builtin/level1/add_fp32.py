"""Elementwise sum of two large fp32 tensors."""
import torch
import torch.nn as nn

LEAP_TAGS = ["elementwise", "binary"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 257, dtype=DTYPE), torch.randn(16, 257, dtype=DTYPE)]


def get_init_inputs():
    return []
