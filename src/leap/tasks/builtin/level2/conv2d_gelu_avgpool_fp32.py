"""Convolution, GELU, 2x2 average pooling (fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["conv", "fused", "pooling"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d"]

DTYPE = torch.float32
BATCH, CIN, COUT, H, W = 32, 32, 64, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)

    def forward(self, x):
        return F.avg_pool2d(F.gelu(self.conv(x)), 2)


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CIN, 6, 8, dtype=DTYPE)]


def get_init_inputs():
    return [CIN, COUT]
