"""2-D average pooling, kernel 3, stride 2, padding 1, in fp32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["pooling"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CH, H, W = 32, 64, 256, 256


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return F.avg_pool2d(x, kernel_size=3, stride=2, padding=1)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 3, 11, 14, dtype=DTYPE)]


def get_init_inputs():
    return []
