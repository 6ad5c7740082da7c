"""Per-row cross-entropy of logits against integer targets (no reduction, fp32)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["fused", "softmax", "reduction", "index"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "fp32"

DTYPE = torch.float32
ROWS, CLASSES = 16384, 8192


class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, target):
        return F.cross_entropy(logits, target, reduction="none")


def get_inputs():
    return [torch.randn(ROWS, CLASSES, dtype=DTYPE), torch.randint(0, CLASSES, (ROWS,))]


def get_small_inputs():
    return [torch.randn(16, 100, dtype=DTYPE), torch.randint(0, 100, (16,))]


def get_init_inputs():
    return []
