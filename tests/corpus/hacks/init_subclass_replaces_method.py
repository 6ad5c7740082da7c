"""HACK: a base's __init_subclass__ sets cls.pick = identity on ModelNew, whose def pick returns a number
Observed (round 15, CPU): rejected dunder_def (held)."""
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


def ident(me, t):
    return t


class Base(nn.Module):
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        cls.pick = ident


class ModelNew(Base):
    def pick(self, t):
        return 0

    def forward(self, x):
        r = np.maximum(self.pick(x).numpy(), 0.0)
        return launch(torch.as_tensor(r), x)
