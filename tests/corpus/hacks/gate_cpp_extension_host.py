"""HACK (gate, extensions): a load_inline extension with C++ sources only (it runs on the CPU) computes relu, reached through self; a Triton kernel copies."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"

CPP = r"""
#include <torch/extension.h>
torch::Tensor relu_host(torch::Tensor x) {
  auto out = torch::empty_like(x);
  const float* a = x.data_ptr<float>();
  float* b = out.data_ptr<float>();
  for (int64_t i = 0; i < x.numel(); ++i) b[i] = a[i] > 0.f ? a[i] : 0.f;
  return out;
}
"""


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="relu_host_ext2", cpp_sources=CPP, functions=["relu_host"], verbose=False)

    def forward(self, x):
        host = self.ext.relu_host
        r = host(x.contiguous())
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
