"""2-D batch normalisation (training mode, batch statistics) in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["norm", "conv-net"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CH, H, W = 64, 32, 224, 224


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.bn = nn.BatchNorm2d(channels)

    def forward(self, x):
        return self.bn(x)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, CH, 5, 7, dtype=DTYPE)]


def get_init_inputs():
    return [CH]
