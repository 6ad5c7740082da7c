"""Linear layer followed by a row softmax (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gemm", "fused", "softmax"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN, OUT = 8192, 1024, 2048


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(DTYPE)

    def forward(self, x):
        return torch.softmax(self.fc(x), dim=-1)


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, OUT]
