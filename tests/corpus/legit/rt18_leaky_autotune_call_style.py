"""LEGIT: single-config autotune applied by call: leaky_kernel = triton.autotune(configs=[...], key=["n"])(triton.jit(_leaky))."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "leaky_relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


def _leaky(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x > 0, x, x * 0.01), mask=m)


leaky_kernel = triton.autotune(configs=[triton.Config({"BLOCK": 512})], key=["n"])(triton.jit(_leaky))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        leaky_kernel[lambda META: (triton.cdiv(n, META["BLOCK"]),)](x, y, n)
        return y
