"""GeGLU activation: gelu(a) * b where a, b are the two halves of the input (bf16)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["elementwise", "fused", "activation"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a, b = x.chunk(2, dim=-1)
        return F.gelu(a) * b


def get_inputs():
    return [torch.randn(ROWS, 2 * COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 2 * 100, dtype=DTYPE)]


def get_init_inputs():
    return []
