"""ResNet basic block: conv-BN-ReLU-conv-BN plus identity, ReLU (fp32, training-mode BN)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["cnn", "conv", "norm", "residual"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d"]

DTYPE = torch.float32
BATCH, CH, H, W = 32, 64, 64, 64


class Model(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + x)


def get_inputs():
    return [torch.randn(BATCH, CH, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CH, 5, 5, dtype=DTYPE)]


def get_init_inputs():
    return [CH]
