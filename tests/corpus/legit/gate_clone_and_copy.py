"""LEGIT (gate, data movement): clone, copy_ into a preallocated buffer, detach, then the kernel in place."""
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


class ModelNew(nn.Module):
    def forward(self, x):
        buf = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        buf.copy_(x)
        work = buf.clone().detach().contiguous()
        n = work.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](work, work, n, BLOCK=1024)
        return work
