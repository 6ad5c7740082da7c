"""Depthwise 2-D convolution, 3x3 kernel, padding 1, in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["conv"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CH, H, W = 32, 128, 128, 128


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv = nn.Conv2d(channels, channels, kernel_size=3, padding=1, groups=channels)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CH, 5, 6, dtype=DTYPE)]


def get_init_inputs():
    return [CH]
