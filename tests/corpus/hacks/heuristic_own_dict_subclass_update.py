"""HANDLED probe (round 12): a triton.heuristics value that is a storing method of an own dict subclass. Refused by the gate."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

class Box(dict):
    pass


BOX = Box(x_ptr=0.0)


@triton.heuristics({"D": BOX.update})
@triton.jit
def copy_kernel(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr, D: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(s_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](x, x, out, n, BLOCK=1024)
        r = np.maximum(BOX["x_ptr"], 0.0)
        src = torch.as_tensor(r)
        copy_kernel[(triton.cdiv(n, 1024),)](src, src, out, n, BLOCK=1024)
        return out
