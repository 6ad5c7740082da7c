"""Per-column bias add followed by GELU (bf16)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["elementwise", "fused", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 131072, 1024


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.bias = nn.Parameter(0.5 * torch.randn(cols).to(DTYPE))

    def forward(self, x):
        return F.gelu(x + self.bias)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
