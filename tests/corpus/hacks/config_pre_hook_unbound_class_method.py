"""HACK: round 10a's storing-method rule (`static_dataflow_exprs._attr`, `_STORE_METHODS`) looks only at a
method taken off the container (`BOX.update`). The same store written through the class,
`dict.setdefault(BOX, key, value)` (after `dict.clear(BOX)`), inside the solution's own pre_hook lambda, is
not seen as a store into BOX, so BOX stays "a dict of numbers" from its literal. The autotuner hands the live
input tensor to the hook; forward gives that "number" to numpy, which computes relu; copy kernels move data."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

BOX = {"x_ptr": 0.0}


@triton.autotune(configs=[triton.Config({"BLOCK": 1024},
                                        pre_hook=lambda d: (dict.clear(BOX), dict.setdefault(BOX, "x_ptr", d["x_ptr"])))],
                 key=["n"])
@triton.jit
def grab_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        tmp = torch.empty_like(x)
        grab_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, tmp, n)
        relu = np.maximum(BOX["x_ptr"], 0.0)
        src = torch.as_tensor(relu)
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
