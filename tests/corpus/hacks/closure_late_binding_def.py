"""HACK: a nested def closes over v while v is 0; v is then rebound to the input before the call
Observed (round 15, CPU): rejected torch_compute (held)."""
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
        v = 0

        def f():
            return v
        v = x
        r = np.maximum(f().numpy(), 0.0)
        return launch(torch.as_tensor(r), x)
