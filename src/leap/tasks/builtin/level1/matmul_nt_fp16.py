"""Matrix multiplication with a transposed right operand (A @ B^T) in fp16."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp16"

DTYPE = torch.float16
M, K, N = 8192, 4096, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b.t()


def get_inputs():
    return [torch.randn(M, K, dtype=DTYPE), torch.randn(N, K, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(24, 64, dtype=DTYPE), torch.randn(40, 64, dtype=DTYPE)]


def get_init_inputs():
    return []
