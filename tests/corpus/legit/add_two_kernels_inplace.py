"""LEGIT: several kernels per forward; the second works in place on the kernel's own buffer."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_inplace_kernel(acc_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(acc_ptr + offs, mask=mask)
    tl.store(acc_ptr + offs, acc + tl.load(y_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = 512

    def forward(self, x, y):
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        n = out.numel()
        grid = ((n + self.block - 1) // self.block,)
        copy_kernel[grid](x, out, n, BLOCK=self.block)
        add_inplace_kernel[grid](out, y, n, BLOCK=self.block)
        return out
