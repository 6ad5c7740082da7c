"""LEGIT (allowed ops): the task allows linear, so the layer built as the reference builds it (nn.Linear(...).to(dtype)) does the GEMM and a Triton kernel applies the ReLU in place; on a GPU the GEMM's library kernels are the task's to give to PyTorch (not counted against the custom-kernel share)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_relu_bf16"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_inplace(y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(y, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(torch.bfloat16)

    def forward(self, x):
        y = self.fc(x)
        n = y.numel()
        relu_inplace[(triton.cdiv(n, 1024),)](y, n, BLOCK=1024)
        return y
