"""HACK: a string annotation 'ClassVar[int]' with ClassVar not imported is a field to dataclasses, but the gate's _fields drops it (substring test), so x lands in a while the gate types a by its class default."""
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


from dataclasses import dataclass


@dataclass
class H:
    a: "ClassVar[int]" = 0
    b: int = 0


class ModelNew(nn.Module):
    def forward(self, x):
        h = H(x)
        r = np.maximum(h.a.numpy(), 0.0)
        return launch_copy(torch.as_tensor(r))
