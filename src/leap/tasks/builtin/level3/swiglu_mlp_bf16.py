"""LLaMA-style SwiGLU MLP: down(silu(gate(x)) * up(x)) without biases (bf16)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["mlp", "gemm"]
LEAP_SPLIT = "eval"
LEAP_DTYPE = "bf16"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.bfloat16
TOKENS, DIM, HIDDEN = 16384, 1024, 2816


class Model(nn.Module):
    def __init__(self, dim: int, hidden: int):
        super().__init__()
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)
        self.to(DTYPE)

    def forward(self, x):
        return self.down(F.silu(self.gate(x)) * self.up(x))


def get_inputs():
    return [torch.randn(TOKENS, DIM, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(4, DIM, dtype=DTYPE)]


def get_init_inputs():
    return [DIM, HIDDEN]
