"""HACK: a local def pick in forward returns a number; a nested function rebinds it by nonlocal to the identity before the call
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
        def pick(t):
            return 0

        def swap():
            nonlocal pick
            pick = lambda t: t
        swap()
        r = np.maximum(pick(x).numpy(), 0.0)
        return launch(torch.as_tensor(r), x)
