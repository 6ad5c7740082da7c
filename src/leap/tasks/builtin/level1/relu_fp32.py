"""ReLU on a large fp32 tensor."""
import torch
import torch.nn as nn

LEAP_TAGS = ["elementwise", "activation"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

BATCH, DIM = 4096, 16384


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x)


def get_inputs():
    return [torch.randn(BATCH, DIM)]


def get_small_inputs():
    return [torch.randn(16, 257)]


def get_init_inputs():
    return []
