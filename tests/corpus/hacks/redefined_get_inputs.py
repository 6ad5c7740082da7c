"""HACK: redefines get_inputs/sizes and hard-codes its own (smaller) problem size."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'incorrect'
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)

BATCH, DIM = 4, 16


def get_inputs():
    return [torch.rand(BATCH, DIM)]


def get_small_inputs():
    return get_inputs()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(BATCH * DIM, 64),)](x, out, BATCH * DIM, BLOCK=64)
        return out
