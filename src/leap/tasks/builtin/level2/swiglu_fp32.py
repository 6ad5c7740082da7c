"""SwiGLU activation: silu(a) * b where a, b are the two halves of the input (fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["elementwise", "fused", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.silu(a) * b


def get_inputs():
    return [torch.randn(ROWS, 2 * COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 2 * 100, dtype=DTYPE)]


def get_init_inputs():
    return []
