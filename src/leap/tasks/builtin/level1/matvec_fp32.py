"""Matrix-vector product in fp32 (memory bound)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
M, K = 16384, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, v):
        return torch.mv(a, v)


def get_inputs():
    return [torch.randn(M, K, dtype=DTYPE), torch.randn(K, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(64, 96, dtype=DTYPE), torch.randn(96, dtype=DTYPE)]


def get_init_inputs():
    return []
