"""fp32 matmul (corpus task)."""
import torch
import torch.nn as nn

LEAP_DTYPE = "fp32"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, a, b):
        return a @ b


def get_inputs():
    return [torch.randn(1024, 1024), torch.randn(1024, 1024)]


def get_small_inputs():
    return [torch.randn(32, 64), torch.randn(64, 32)]


def get_init_inputs():
    return []
