"""Divide each row by its L2 norm (clamped), i.e. F.normalize (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "reduction", "norm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS = 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x / torch.linalg.vector_norm(x, dim=-1, keepdim=True).clamp_min(1e-6)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(16, 300, dtype=DTYPE)]


def get_init_inputs():
    return []
