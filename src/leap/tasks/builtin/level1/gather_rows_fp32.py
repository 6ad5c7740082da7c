"""Embedding-style row lookup: table[indices] in fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["gather", "index"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
VOCAB, DIM, NIDX = 8192, 4096, 65536


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, table, idx):
        return table[idx]


def get_inputs():
    return [torch.randn(VOCAB, DIM, dtype=DTYPE), torch.randint(0, VOCAB, (NIDX,))]


def get_small_inputs():
    return [torch.randn(64, 32, dtype=DTYPE), torch.randint(0, 64, (40,))]


def get_init_inputs():
    return []
