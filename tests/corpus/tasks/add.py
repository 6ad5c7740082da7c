"""Elementwise add of two fp32 tensors (corpus task)."""
import torch
import torch.nn as nn

LEAP_DTYPE = "fp32"


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return x + y


def get_inputs():
    return [torch.randn(1024, 4096), torch.randn(1024, 4096)]


def get_small_inputs():
    return [torch.randn(16, 257), torch.randn(16, 257)]


def get_init_inputs():
    return []
