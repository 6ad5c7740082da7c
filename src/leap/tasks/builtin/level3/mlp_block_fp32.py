"""Transformer MLP block: Linear, GELU, Linear (fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["mlp", "gemm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
TOKENS, DIM, HIDDEN = 8192, 1024, 4096


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.to(DTYPE)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def get_inputs():
    return [torch.randn(TOKENS, DIM, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, DIM, dtype=DTYPE)]


def get_init_inputs():
    return [DIM, HIDDEN]
