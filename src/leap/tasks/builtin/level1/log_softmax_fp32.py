"""Log-softmax over the last dimension of an fp32 matrix."""
import torch
import torch.nn as nn

LEAP_TAGS = ["softmax", "reduction"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log_softmax(x, dim=-1)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 513, dtype=DTYPE)]


def get_init_inputs():
    return []
