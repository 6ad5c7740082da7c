"""LEGIT (red-team 23b, refused before): autotune configs built with itertools.product."""
import itertools

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.autotune(
    configs=[triton.Config({"BLOCK_SIZE": bs}, num_warps=nw) for bs, nw in itertools.product([1024], [4])],
    key=["n_elements"],
)
@triton.jit
def relu_kernel(x_ptr, y_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    m = offs < n_elements
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.where(x > 0, x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK_SIZE"]),)](x, y, n)
        return y
