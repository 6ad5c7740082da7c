"""Per-column scale and shift, then clamp to [-2, 2] (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["elementwise", "fused", "broadcast"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 65536, 1024


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.scale = nn.Parameter(1.5 * torch.randn(cols))
        self.shift = nn.Parameter(torch.randn(cols))

    def forward(self, x):
        return torch.clamp(x * self.scale + self.shift, -2.0, 2.0)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
