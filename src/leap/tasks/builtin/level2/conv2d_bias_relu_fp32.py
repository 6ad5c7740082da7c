"""Convolution (no bias), per-channel bias add, ReLU (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["conv", "fused", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["conv2d"]

DTYPE = torch.float32
BATCH, CIN, COUT, H, W = 32, 64, 128, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1, bias=False)
        self.bias = nn.Parameter(0.1 * torch.randn(cout, 1, 1))

    def forward(self, x):
        return torch.relu(self.conv(x) + self.bias)


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CIN, 5, 6, dtype=DTYPE)]


def get_init_inputs():
    return [CIN, COUT]
