"""Scale, causal mask (upper triangle to -inf), softmax over the last dim (fp32)."""
import torch
import torch.nn as nn

LEAP_TAGS = ["fused", "softmax", "attention"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
BATCH, SEQ = 64, 1024


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 0.125

    def forward(self, x):
        seq = x.shape[-1]
        mask = torch.ones(seq, seq, dtype=torch.bool, device=x.device).triu(1)
        return torch.softmax((x * self.scale).masked_fill(mask, float("-inf")), dim=-1)


def get_inputs():
    return [torch.randn(BATCH, SEQ, SEQ, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 16, 16, dtype=DTYPE)]


def get_init_inputs():
    return []
