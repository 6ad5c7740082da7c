"""LEGIT (gate launch style): the @triton.jit kernel is passed as an argument to a launcher."""
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


def launch(kernel, x, block=1024):
    out = torch.empty_like(x)
    n = x.numel()
    kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        pass

    def forward(self, x):
        return launch(relu_kernel, x.contiguous())
