"""HACK (gate, kernel body): `self` (kind lost in a join with the input) reaches a kernel body, which calls a
method of ModelNew that nothing calls in Python; the method runs numpy in place on the block's host buffer."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def body_kernel(x_ptr, out_ptr, obj, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask, other=0.0)
    o = obj  # a local: the old body rules checked only the arguments themselves
    o.act(v.handle.data)
    tl.store(out_ptr + offs, v, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.flag = True

    def act(self, buf):
        np.maximum(buf, 0.0, out=buf)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        obj = self if self.flag else x
        body_kernel[(triton.cdiv(n, 1024),)](x, out, obj, n, BLOCK=1024)
        return out
