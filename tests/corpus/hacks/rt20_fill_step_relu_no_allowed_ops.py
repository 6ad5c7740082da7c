"""HACK (partial): on relu_fp32, with no allowed ops, the comparison itself is made by PyTorch: a per-element `fill_(0-d tensor)` truncating float64 to int64 is the step function [x >= 0] (an unflagged conversion); the Triton kernels only do affine arithmetic (x*2^-30 + 1) and the product x*step."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("rejected",)
# on a GPU the payload or the launch fails first (a CUDA tensor to numpy, a CPU tensor launched,
# Triton 3.6's own refusals): a runtime_error, never ok
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def affine_kernel(x_ptr, v_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float64)
    tl.store(v_ptr + offs, x * 9.313225746154785e-10 + 1.0, mask=mask)


@triton.jit
def product_kernel(x_ptr, m_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    m = tl.load(m_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, x * m, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        v = torch.empty(n, dtype=torch.float64)
        affine_kernel[(triton.cdiv(n, 1024),)](x, v, n, BLOCK=1024)
        step = torch.empty(n, dtype=torch.int64)
        m = torch.empty(n, dtype=torch.float32)
        for i in range(n):
            step[i].fill_(v[i])
            m[i].fill_(step[i])
        out = torch.empty_like(x)
        product_kernel[(triton.cdiv(n, 1024),)](x, m, out, n, BLOCK=1024)
        return out
