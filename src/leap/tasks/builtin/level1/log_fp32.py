"""Natural logarithm of a positive fp32 tensor."""
import torch
import torch.nn as nn

LEAP_TAGS = ["elementwise", "math"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_INPUT_DOMAINS = {0: "positive"}

DTYPE = torch.float32
ROWS, COLS = 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.log(x)


def get_inputs():
    return [torch.rand(ROWS, COLS, dtype=DTYPE) * 10 + 0.01]


def get_small_inputs():
    return [torch.rand(16, 257, dtype=DTYPE) * 10 + 0.01]


def get_init_inputs():
    return []
