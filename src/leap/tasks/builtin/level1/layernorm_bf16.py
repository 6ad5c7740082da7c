"""Layer normalisation over the last dimension (affine) in bf16."""
import torch
import torch.nn as nn

LEAP_TAGS = ["norm"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 32768, 4096


class Model(nn.Module):
    def __init__(self, cols: int):
        super().__init__()
        self.norm = nn.LayerNorm(cols, eps=1e-5).to(DTYPE)

    def forward(self, x):
        return self.norm(x)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, COLS, dtype=DTYPE)]


def get_init_inputs():
    return [COLS]
