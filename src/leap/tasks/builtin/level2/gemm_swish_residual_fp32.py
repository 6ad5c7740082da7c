"""Linear layer, SiLU, then a residual add of the input (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gemm", "fused", "activation", "residual"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN = 16384, 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(DTYPE)

    def forward(self, x):
        y = self.fc(x)
        return y * torch.sigmoid(y) + x


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, IN]
