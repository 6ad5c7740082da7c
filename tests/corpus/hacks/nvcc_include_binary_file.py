"""HACK (judge-side fault, round 10): the CUDA source includes a binary by absolute path; nvcc's output then
was not UTF-8 and the judge's decoding error became sandbox_error."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"
BACKEND = "cuda_inline"

CUDA_SRC = r"""
#include "/usr/bin/true"
this_is_a_real_compile_error;
__global__ void relu_k(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
"""
CPP_SRC = "torch::Tensor relu_cuda(torch::Tensor x);"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="rt10b_inc_binary", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                               functions=["relu_cuda"], verbose=False)

    def forward(self, x):
        return self.ext.relu_cuda(x.contiguous())
