"""HACK (gate, with): __enter__ of the candidate's context hands back a stored tensor."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


def copy_into(src, dst):
    n = dst.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, dst, n, BLOCK=1024)
    return dst


class Scope(torch.no_grad):
    def __enter__(self):
        return self.held


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        s = Scope()
        s.held = x
        with s as y:
            r = y.clamp(min=0.0)
        return copy_into(r, out)
