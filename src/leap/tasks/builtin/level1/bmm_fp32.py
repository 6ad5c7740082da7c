"""Batched matrix multiplication in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, M, K, N = 64, 512, 512, 512


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.bmm(a, b)


def get_inputs():
    return [torch.randn(BATCH, M, K, dtype=DTYPE), torch.randn(BATCH, K, N, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(3, 17, 32, dtype=DTYPE), torch.randn(3, 32, 20, dtype=DTYPE)]


def get_init_inputs():
    return []
