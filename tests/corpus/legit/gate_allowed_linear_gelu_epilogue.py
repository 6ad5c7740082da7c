"""LEGIT gemm_bias_gelu_fp32 (allowed op linear): F.linear for the GEMM, a Triton erf-GELU epilogue written
in place into the GEMM's output (no bias in the GEMM: the epilogue adds it)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "gemm_bias_gelu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def bias_gelu_kernel(y_ptr, b_ptr, n, cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask, other=0.0)
    b = tl.load(b_ptr + offs % cols, mask=mask, other=0.0)
    v = y + b
    out = 0.5 * v * (1.0 + tl.math.erf(v * 0.7071067811865476))
    tl.store(y_ptr + offs, out, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        y = F.linear(x, self.fc.weight)
        n = y.numel()
        bias_gelu_kernel[(triton.cdiv(n, 1024),)](y, self.fc.bias, n, y.shape[-1], BLOCK=1024)
        return y
