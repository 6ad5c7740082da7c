"""Attention scores: softmax(Q K^T / sqrt(d)) over the last dimension (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["matmul", "fused", "softmax", "attention"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["matmul"]

DTYPE = torch.float32
BATCH, SEQ, D = 32, 1024, 64


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, q, k):
        scores = torch.bmm(q, k.transpose(1, 2)) * (q.shape[-1] ** -0.5)
        return torch.softmax(scores, dim=-1)


def get_inputs():
    return [torch.randn(BATCH, SEQ, D, dtype=DTYPE), torch.randn(BATCH, SEQ, D, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 12, 16, dtype=DTYPE), torch.randn(2, 12, 16, dtype=DTYPE)]


def get_init_inputs():
    return []
