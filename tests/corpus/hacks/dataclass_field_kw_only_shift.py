"""HACK: field(kw_only=True) moves a field to the end of __init__; the gate's positional mapping (guarded by 'init'/KW_ONLY/InitVar strings, not kw_only) gives x to a, Python gives it to b."""
import functools
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def launch_copy(src):
    out = torch.empty_like(src)
    n = src.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


from dataclasses import dataclass, field


@dataclass
class H:
    a: int = field(default=0, kw_only=True)
    b: int = 0


class ModelNew(nn.Module):
    def forward(self, x):
        h = H(x)
        r = np.maximum(h.b.numpy(), 0.0)
        return launch_copy(torch.as_tensor(r))
