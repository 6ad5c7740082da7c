"""Linear layer, sigmoid gate times a constant, plus the pre-activation (fp16)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gemm", "fused", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp16"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float16
BATCH, IN, OUT = 32768, 1024, 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(DTYPE)
        self.scale = 2.0

    def forward(self, x):
        y = self.fc(x)
        return torch.sigmoid(y) * self.scale + y


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, OUT]
