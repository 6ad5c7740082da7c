"""LEGIT (gate, control flow): the kernel and block size chosen by if/else and a match."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


@triton.jit
def relu_kernel_wide(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n > 1 << 20:
            kernel = relu_kernel_wide
        else:
            kernel = relu_kernel
        match x.dim():
            case 1:
                block = 256
            case _:
                block = 1024
        while block > n and block > 16:
            block //= 2
        kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
        return out
