"""LEGIT (KernelBench style): a CUDA kernel whose source includes <stdio.h> (a printf guard that never fires)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = "ok"
DEVICE = "cuda"
BACKEND = "cuda_inline"

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <stdio.h>

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
    if (n < 0 && i == 0) printf("relu_k: negative size %ld\n", n);
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    if (n == 0) return y;
    relu_k<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor relu_cuda(torch::Tensor x);"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="gate_cuda_stdio_relu", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                               functions=["relu_cuda"], verbose=False)

    def forward(self, x):
        return self.ext.relu_cuda(x.contiguous())
