"""Rectangular matrix multiplication in bf16."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
M, K, N = 8192, 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=DTYPE), torch.randn(K, N, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(40, 64, dtype=DTYPE), torch.randn(64, 24, dtype=DTYPE)]


def get_init_inputs():
    return []
