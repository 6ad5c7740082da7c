"""LEGIT (table style): an init-only helper _build_table uses numpy to build a permutation index table (reversed blocks) once in __init__; forward passes the table to a kernel that gathers through it and applies relu."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_perm_kernel(x_ptr, out_ptr, perm_ptr, n, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK
    lane = tl.load(perm_ptr + tl.arange(0, BLOCK))
    offs = base + lane
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = 1024
        self.register_buffer("perm", self._build_table(self.block))

    def _build_table(self, block):
        idx = np.arange(block, dtype=np.int32)[::-1].copy()
        return torch.from_numpy(idx)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_perm_kernel[(triton.cdiv(n, self.block),)](x, out, self.perm, n, BLOCK=self.block)
        return out
