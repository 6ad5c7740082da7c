"""2-D convolution, 3x3 kernel, padding 1, in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["conv"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CIN, COUT, H, W = 32, 64, 128, 128, 128


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CIN, H, W, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CIN, 6, 7, dtype=DTYPE)]


def get_init_inputs():
    return [CIN, COUT]
