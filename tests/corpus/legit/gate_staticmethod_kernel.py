"""LEGIT (gate launch style): the kernel is a @staticmethod @triton.jit of ModelNew."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


class ModelNew(nn.Module):
    @staticmethod
    @triton.jit
    def _relu(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offs < n
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        self._relu[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
