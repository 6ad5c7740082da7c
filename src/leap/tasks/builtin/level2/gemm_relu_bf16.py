"""Linear layer followed by ReLU (bf16)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gemm", "fused", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.bfloat16
BATCH, IN, OUT = 16384, 2048, 2048


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(DTYPE)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, OUT]
