"""Subtract the row mean and divide by the row standard deviation (bf16)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "reduction", "norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "bf16"

DTYPE = torch.bfloat16
ROWS, COLS = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x32 = x.float()
        mean = x32.mean(dim=-1, keepdim=True)
        std = x32.std(dim=-1, keepdim=True)
        return ((x32 - mean) / (std + 1e-5)).to(x.dtype)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE) * 3 + 1]


def get_small_inputs():
    return [torch.randn(16, 300, dtype=DTYPE) * 3 + 1]


def get_init_inputs():
    return []
