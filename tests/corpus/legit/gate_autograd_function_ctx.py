"""LEGIT (gate, autograd): a torch.autograd.Function whose forward launches the kernel and saves for backward (ctx bookkeeping); backward computes with PyTorch (never run: forward runs under no_grad)."""
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


class TritonReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, block=1024):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
        ctx.save_for_backward(x)
        ctx.block = block
        ctx.mark_non_differentiable(out) if not ctx.needs_input_grad[0] else None
        return out

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return grad_out * (x > 0).to(grad_out.dtype), None


class ModelNew(nn.Module):
    def forward(self, x):
        return TritonReLU.apply(x, 1024)
