"""Group normalisation (8 groups) over an NCHW fp32 tensor."""
import torch
import torch.nn as nn

LEAP_TAGS = ["norm", "conv-net"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CH, H, W = 64, 64, 128, 128


class Model(nn.Module):
    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.gn = nn.GroupNorm(groups, channels)

    def forward(self, x):
        return self.gn(x)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CH, 4, 6, dtype=DTYPE)]


def get_init_inputs():
    return [8, CH]
