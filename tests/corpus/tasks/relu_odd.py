"""ReLU, fp32, on sizes that are no multiple of a block on the GPU too (corpus task: a kernel without a tail
mask is wrong on both devices)."""
import torch
import torch.nn as nn

LEAP_DTYPE = "fp32"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)


def get_inputs():
    return [torch.randn(1023, 4097)]


def get_small_inputs():
    return [torch.randn(16, 257)]


def get_init_inputs():
    return []
