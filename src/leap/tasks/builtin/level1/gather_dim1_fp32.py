"""torch.gather along dimension 1 with an index matrix in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gather", "index"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, COLS, K = 8192, 8192, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        return torch.gather(x, 1, idx)


def get_inputs():
    return [torch.randn(ROWS, COLS, dtype=DTYPE), torch.randint(0, COLS, (ROWS, K))]


def get_small_inputs():
    return [torch.randn(8, 50, dtype=DTYPE), torch.randint(0, 50, (8, 30))]


def get_init_inputs():
    return []
