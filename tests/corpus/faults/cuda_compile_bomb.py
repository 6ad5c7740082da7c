"""FAULT (CUDA): template recursion that makes nvcc run for ages."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = ('timeout', 'compile_error')
DEVICE = "cuda"
BACKEND = "cuda_inline"

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu_k(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

template <int N, long M> struct Bomb {
    static constexpr long v = Bomb<N - 1, 2 * M>::v + Bomb<N - 1, 2 * M + 1>::v;  // 2^N distinct types
};
template <long M> struct Bomb<0, M> { static constexpr long v = M; };
__global__ void bomb_k(long* o) { *o = Bomb<28, 0>::v; }

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long n = x.numel();
    relu_k<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor relu_cuda(torch::Tensor x);"


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="cuda_compile_bomb_ext", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                               functions=["relu_cuda"], verbose=False)

    def forward(self, x):
        return self.ext.relu_cuda(x.contiguous())
