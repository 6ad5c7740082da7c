"""Convolution, batch normalisation (training mode), ReLU (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["conv", "fused", "norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d"]

DTYPE = torch.float32
BATCH, CIN, COUT, H, W = 32, 32, 64, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        # no bias: BatchNorm cancels it, and on small inputs it would swamp the signal (cancellation)
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(3, CIN, 5, 5, dtype=DTYPE)]


def get_init_inputs():
    return [CIN, COUT]
