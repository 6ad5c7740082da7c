"""Linear layer followed by LayerNorm (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gemm", "fused", "norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, IN, OUT = 16384, 1024, 1024


class Model(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(DTYPE)
        self.norm = nn.LayerNorm(out_features)

    def forward(self, x):
        return self.norm(self.fc(x))


def get_inputs():
    return [torch.randn(BATCH, IN, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, IN, dtype=DTYPE)]


def get_init_inputs():
    return [IN, OUT]
