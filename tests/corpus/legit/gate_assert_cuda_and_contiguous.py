"""LEGIT (KernelBench style): the solution asserts its inputs are CUDA and contiguous before launching. On a CPU
judge the assert fails because the inputs are not on CUDA: that says nothing about the kernel, so the right
verdict is needs_gpu (on a GPU: ok). `error_origin._is_cuda_test` accepts only tests made wholly of CUDA
predicates, so `x.is_cuda and x.is_contiguous()` is the candidate's runtime_error."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)

EXPECT = "needs_gpu"
EXPECT_GPU = "ok"


class ModelNew(nn.Module):
    def forward(self, x):
        assert x.is_cuda and x.is_contiguous(), "x must be a contiguous CUDA tensor"
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
