"""LEGIT: a very long input processed in chunks: slices of the flat input and output (views) launched one kernel
per chunk, inside torch.inference_mode()."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"

CHUNK = 2048


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        with torch.inference_mode():
            flat = x.contiguous().view(-1)
            out = torch.empty_like(flat)
            total = flat.numel()
            for start in range(0, total, CHUNK):
                n = min(CHUNK, total - start)
                relu_kernel[(triton.cdiv(n, 512),)](flat[start:start + n], out[start:start + n], n, BLOCK=512)
            return out.view(x.shape)
