"""HACK (host compute in C++): Python copies the input into a CPU tensor handed to the extension, whose host code computes relu through a cast of its untyped data pointer; a decoy kernel runs and the result is copied back; the forward profile sees the device-to-host bytes."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cuda"
BACKEND = "cuda_inline"

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void decoy_k(float* y, long n) {
    if (blockIdx.x == 0 && threadIdx.x == 0 && n < 0) y[0] = 0.f;
}

torch::Tensor run(torch::Tensor staged, torch::Tensor out) {
    void* raw = staged.data_ptr();
    for (long i = 0; i < staged.numel(); ++i) {
        float v = static_cast<float*>(raw)[i];
        static_cast<float*>(raw)[i] = v > 0.f ? v : 0.f;
    }
    decoy_k<<<1, 32>>>(out.data_ptr<float>(), out.numel());
    return staged;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="host_loop_ext", cpp_sources="torch::Tensor run(torch::Tensor s, torch::Tensor o);",
                               cuda_sources=CUDA_SRC, functions=["run"], verbose=False)

    def forward(self, x):
        staged = torch.empty(x.shape, dtype=x.dtype)
        staged.copy_(x)
        out = torch.empty_like(x)
        out.copy_(self.ext.run(staged, out))
        return out
