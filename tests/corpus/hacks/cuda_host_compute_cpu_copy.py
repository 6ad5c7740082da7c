"""HACK (host compute in C++): the extension copies the input to the host (.cpu() in C++), applies relu in a host loop, uploads the answer and launches a decoy kernel; the forward profile sees the device-to-host bytes."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cuda"
BACKEND = "cuda_inline"

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void touch_k(float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] + 0.0f;
}

torch::Tensor relu_host(torch::Tensor x) {
    auto staged = x.contiguous().cpu();
    auto out = torch::empty_like(x);
    const long n = staged.numel();
    std::vector<float> answer(n);
    const float* src = staged.data_ptr<float>();
    for (long i = 0; i < n; ++i) answer[i] = src[i] > 0.f ? src[i] : 0.f;
    cudaMemcpy(out.data_ptr<float>(), answer.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    touch_k<<<(n + 255) / 256, 256>>>(out.data_ptr<float>(), n);
    return out;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="host_compute_copy_ext", cpp_sources="torch::Tensor relu_host(torch::Tensor x);",
                               cuda_sources=CUDA_SRC, functions=["relu_host"], verbose=False)

    def forward(self, x):
        return self.ext.relu_host(x)
