"""LEGIT gate: a for loop in __init__ over map(np.exp2, exps) fills a list of block sizes."""
import dataclasses
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"



@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.sizes = []
        for v in map(np.exp2, [8.0, 9.0, 10.0]):
            self.sizes.append(int(v))

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        block = 1024
        relu_kernel[(triton.cdiv(n, block),)](x, out, n, BLOCK=block)
        return out
