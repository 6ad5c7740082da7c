"""1-D convolution, kernel 5, padding 2, in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["conv"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, CIN, COUT, L = 64, 128, 128, 4096


class Model(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, kernel_size=5, padding=2)

    def forward(self, x):
        return self.conv(x)


def get_inputs():
    return [torch.randn(BATCH, CIN, L, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, CIN, 19, dtype=DTYPE)]


def get_init_inputs():
    return [CIN, COUT]
