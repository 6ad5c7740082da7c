"""Multi-head self-attention block (QKV projection, softmax attention, output projection), fp32."""
import torch
import torch.nn as nn

LEAP_TAGS = ["attention", "gemm"]
LEAP_SPLIT = "train"
LEAP_DTYPE = "fp32"
LEAP_ALLOWED_OPS = ["linear", "matmul"]

DTYPE = torch.float32
BATCH, SEQ, DIM, HEADS = 16, 1024, 512, 8


class Model(nn.Module):
    def __init__(self, dim: int, heads: int):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.to(DTYPE)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(x).view(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        scores = torch.matmul(q, k.transpose(-2, -1)) * (d // h) ** -0.5
        attn = torch.softmax(scores.float(), dim=-1).to(x.dtype)
        out = torch.matmul(attn, v).transpose(1, 2).reshape(b, s, d)
        return self.proj(out)


def get_inputs():
    return [torch.randn(BATCH, SEQ, DIM, dtype=DTYPE)]


def get_small_inputs():
    return [torch.randn(2, 8, DIM, dtype=DTYPE)]


def get_init_inputs():
    return [DIM, HEADS]
