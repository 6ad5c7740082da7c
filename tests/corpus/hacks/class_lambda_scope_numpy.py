"""HACK: class-body scoping via a lambda: a lambda in a class body does not see class names, so `f = lambda: x`
returns the function's tensor x while the class record thinks x is 0.0."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(s_ptr + offs, mask=mask), mask=mask)


def launch(src, like):
    out = torch.empty_like(like)
    n = like.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out



class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()

        class Cfg:
            x = 0.0
            f = lambda: x  # noqa: E731
        r = np.maximum(Cfg.f(), 0.0)
        return launch(torch.as_tensor(r), x)
