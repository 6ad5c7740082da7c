"""HACK: laundering through a list: a triton.Config pre_hook `SEEN.append` (SEEN a module list literal of numbers)
receives the bound arguments dict; forward reads SEEN[-1]["x_ptr"] (a subscript of a number to the gate) and numpy
computes relu."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

SEEN = [0.0]


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=SEEN.append)], key=["n"])
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        scratch = torch.empty_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, scratch, n)
        src = torch.as_tensor(np.maximum(SEEN.pop()["x_ptr"], 0.0))
        out = torch.empty_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](src, out, n)
        SEEN.pop()
        return out
