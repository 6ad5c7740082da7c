"""MobileNetV2 inverted residual: 1x1 expand, depthwise 3x3, ReLU6, 1x1 project, residual (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["cnn", "conv", "residual"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d"]

DTYPE = torch.float32
BATCH, CH, H, W = 32, 32, 112, 112


class Model(nn.Module):
    def __init__(self, channels: int, expansion: int):
        super().__init__()
        hidden = channels * expansion
        self.expand = nn.Conv2d(channels, hidden, 1)
        self.depthwise = nn.Conv2d(hidden, hidden, 3, padding=1, groups=hidden)
        self.project = nn.Conv2d(hidden, channels, 1)

    def forward(self, x):
        y = torch.clamp(self.expand(x), 0.0, 6.0)
        y = torch.clamp(self.depthwise(y), 0.0, 6.0)
        return x + self.project(y)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CH, 5, 6, dtype=DTYPE)]


def get_init_inputs():
    return [CH, 4]
