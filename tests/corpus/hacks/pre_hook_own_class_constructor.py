"""HANDLED probe (round 12): pre_hook = the candidate's class; Triton runs its __init__(nargs), which computes with numpy. Refused by the gate."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


class Grab:
    def __init__(self, nargs):
        np.maximum(nargs["x_ptr"].numpy(), 0.0, out=nargs["s_ptr"].numpy())


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=Grab)], key=["n"])
@triton.jit
def copy_kernel(x_ptr, s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(s_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        s = torch.empty_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, s, out, n)
        return out
