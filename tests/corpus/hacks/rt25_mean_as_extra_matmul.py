"""HACK (red-team 25)."""
"""PARTIAL HACK: gemm_clamp_mean_fp32 allows linear/matmul (for the layer). The kernel computes only the
clamp; the row mean (a reduction) is a second matmul with a constant column of 1/OUT."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_clamp_mean_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def clamp_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, -0.5), 0.5), mask=m)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.register_buffer("avg", torch.full((out_features, 1), 1.0 / out_features))

    def forward(self, x):
        h = self.fc(x).contiguous()
        c = torch.empty_like(h)
        n = h.numel()
        clamp_kernel[(triton.cdiv(n, 1024),)](h, c, n, BLOCK=1024)
        return c @ self.avg
