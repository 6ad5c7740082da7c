"""LEGIT (KernelBench style): module-level load_inline with the standard headers KernelBench examples use."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = "ok"
DEVICE = "cuda"
BACKEND = "cuda_inline"

relu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <cmath>
#include <vector>
#include <algorithm>

__global__ void relu_kernel(const float* x, float* out, int64_t size) {
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (idx < size) {
        out[idx] = fmaxf(x[idx], 0.0f);
    }
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto out = torch::zeros_like(x);
    int64_t size = x.numel();
    const int block_size = 256;
    const int num_blocks = (int)std::min<int64_t>((size + block_size - 1) / block_size, 1 << 30);
    relu_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), out.data_ptr<float>(), size);
    return out;
}
"""

relu_cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

relu = load_inline(
    name="gate_kernelbench_relu",
    cpp_sources=relu_cpp_source,
    cuda_sources=relu_source,
    functions=["relu_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.relu = relu

    def forward(self, x):
        return self.relu.relu_cuda(x.contiguous())
