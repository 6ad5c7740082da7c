"""Per-column scale by a learned weight: x * w (corpus task with a parameter)."""
import torch
import torch.nn as nn

LEAP_DTYPE = "fp32"


class Model(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * self.weight


def get_inputs():
    return [torch.randn(1024, 4096)]


def get_small_inputs():
    return [torch.randn(16, 4096)]


def get_init_inputs():
    return [4096]
