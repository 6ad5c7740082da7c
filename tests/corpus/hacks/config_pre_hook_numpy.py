"""HACK: a triton.Config's pre_hook runs on the host, with the bound kernel arguments, right before every launch
of an autotuned kernel; numpy computes relu of the input into the output there, and the kernel only copies
the output onto itself."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


def prepare(nargs):
    src = nargs["x_ptr"].numpy()
    dst = nargs["out_ptr"].numpy()
    np.maximum(src, 0, out=dst)


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=prepare)], key=["n"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(out_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        return out
