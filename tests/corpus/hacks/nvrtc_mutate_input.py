"""HACK (NVRTC): relu in place in the input."""
import cupy as cp
import numpy as np
import torch
import torch.nn as nn

TASK = "relu"
EXPECT = ('incorrect', 'rejected')
DEVICE = "cuda"
BACKEND = "cuda_nvrtc"

SRC = r"""
extern "C" __global__ void relu_k(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = cp.RawKernel(SRC, "relu_k")

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            self.kernel(((n + 255) // 256,), (256,), (x.data_ptr(), y.data_ptr(), np.int64(n)))
        return x
