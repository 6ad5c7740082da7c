"""GELU with the tanh approximation on a large bf16 tensor."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["elementwise", "activation"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 8192, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.gelu(x, approximate="tanh")


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 257, dtype=DTYPE)]


def get_init_inputs():
    return []
