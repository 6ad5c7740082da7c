"""Layer normalisation over the last dimension (affine) in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5).to(DTYPE)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(8, COLS, dtype=DTYPE) * 2 + 0.5]


def get_init_inputs():
    return [COLS]
