"""Square matrix multiplication in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
M, K, N = 4096, 4096, 4096


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return torch.matmul(a, b)


def get_inputs():
    return [torch.randn(M, K, dtype=DTYPE), torch.randn(K, N, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(33, 47, dtype=DTYPE), torch.randn(47, 29, dtype=DTYPE)]


def get_init_inputs():
    return []
