"""HANDLED probe (round 12): Config's pre_hook given POSITIONALLY (6th arg) as BOX.update: the keyword-only hook check is skipped, but the storing-method rule still makes BOX's items unknown. Refused by the gate."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

BOX = {"x_ptr": 0.0, "s_ptr": 0.0}


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, 4, 1, 1, None, BOX.update)], key=["n"])
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
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, x, out, n)
        r = np.maximum(BOX["x_ptr"], 0.0)
        src = torch.as_tensor(r)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](src, src, out, n)
        return out
