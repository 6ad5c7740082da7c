"""Pre-norm transformer layer: x + attn(ln1(x)), then + mlp(ln2(.)), fp32."""
import torch
import torch.nn as nn
import torch.nn.functional as F

LEAP_TAGS = ["transformer", "attention", "mlp", "gemm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, SEQ, DIM, HEADS = 16, 512, 512, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.ln2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        attn = torch.softmax(torch.matmul(q, k.transpose(-2, -1)) * (d // h) ** -0.5, dim=-1)
        x = x + self.proj(torch.matmul(attn, v).transpose(1, 2).reshape(b, s, d))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 8, DIM, dtype=DTYPE)]


def get_init_inputs():
    return [DIM, HEADS]
