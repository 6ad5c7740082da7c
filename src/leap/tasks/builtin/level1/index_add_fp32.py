"""Scatter-add rows of src into an output of OUT rows (index_add) in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["scatter", "index"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
NSRC, DIM, OUT = 1048576, 128, 16


class Model(nn.Module):
    def __init__(self, out_rows: int):
        super().__init__()
        self.out_rows = out_rows

    def forward(self, src, idx):
        out = torch.zeros(self.out_rows, src.shape[1], dtype=src.dtype, device=src.device)
        return out.index_add_(0, idx, src)


def get_inputs():
    return [torch.randn(NSRC, DIM, dtype=DTYPE), torch.randint(0, OUT, (NSRC,))]


def get_small_inputs():
    return [torch.randn(64, 8, dtype=DTYPE), torch.randint(0, OUT, (64,))]


def get_init_inputs():
    return [OUT]
