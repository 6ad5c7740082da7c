"""LEGIT (gate launch style): forward -> a method -> a module-level helper that launches (grid lambda on meta)."""
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


def relu_via_helper(x, block):
    out = torch.empty_like(x)
    n = x.numel()
    grid = lambda meta: ((n + meta['BLOCK'] - 1) // meta['BLOCK'],)
    relu_kernel[grid](x, out, n, BLOCK=block)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = 512

    def forward(self, x):
        return self._run(x.contiguous())

    def _run(self, x):
        return relu_via_helper(x, self.block)
