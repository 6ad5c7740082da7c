"""LEGIT (CUDA host code): a host wrapper takes the data pointers, launches the kernel in chunks with pointer offsets and a __host__ __device__ helper for the grid size."""
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
__host__ __device__ inline long blocks_for(long n, int threads) { return (n + threads - 1) / threads; }

__global__ void relu_k(const float* __restrict__ x, float* __restrict__ y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = fmaxf(x[i], 0.f);
}

static void launch(const float* xp, float* yp, long n) {
    const long chunk = 1L << 22;
    auto stream = at::cuda::getCurrentCUDAStream();
    for (long off = 0; off < n; off += chunk) {
        long m = std::min(chunk, n - off);
        relu_k<<<blocks_for(m, 256), 256, 0, stream>>>(xp + off, yp + off, m);
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor, not on the cpu");
    auto y = torch::empty_like(x);
    launch(x.data_ptr<float>(), y.data_ptr<float>(), x.numel());
    return y;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="cuda_inline_host_wrapper_ext", cpp_sources="torch::Tensor relu_cuda(torch::Tensor x);",
                               cuda_sources=CUDA_SRC, functions=["relu_cuda"], verbose=False)

    def forward(self, x):
        return self.ext.relu_cuda(x.contiguous())
