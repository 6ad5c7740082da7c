"""LEGIT (gate, sizes and branches): len(x), range(len(...)), sizes from shapes, an early return for empty inputs and a device move; the launch is on a live path."""
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
        x = x.to(x.device).contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        if n == 0:
            return out
        rows = len(x) if x.dim() > 0 else 1
        blocks = [1024 for _ in range(len(x.shape))]
        flat = x.view(rows, -1)
        block = blocks[0] if rows > 0 else 256
        relu_kernel[(triton.cdiv(n, block),)](flat, out, n, BLOCK=block)
        return out
