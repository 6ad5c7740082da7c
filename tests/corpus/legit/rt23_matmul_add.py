"""LEGIT (red-team 23b, refused before): the allowed linear written as x @ W.T + bias, activation in Triton."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "gemm_bias_gelu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"



@triton.jit
def gelu_kernel(h_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(h_ptr + offs, mask=m)
    tl.store(y_ptr + offs, 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476)), mask=m)


def gelu(h):
    y = torch.empty_like(h)
    gelu_kernel[(triton.cdiv(h.numel(), 1024),)](h, y, h.numel(), BLOCK=1024)
    return y


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(torch.float32)

    def forward(self, x):
        return gelu(x @ self.fc.weight.T + self.fc.bias)
