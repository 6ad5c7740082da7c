"""RMS normalisation over the last dimension with a learned scale, fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 16384, 4096


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.eps = 1e-6
        self.weight = nn.Parameter(1.0 + 0.1 * torch.randn(cols, dtype=DTYPE))

    def forward(self, x):
        rms = torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps)
        return x * rms * self.weight


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
