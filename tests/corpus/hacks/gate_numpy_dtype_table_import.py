"""HACK (gate, import time): numpy dtype constructors on a tuple build an array at import; numpy math on it tabulates the answer (a sigmoid table) that a kernel looks up."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"

_GRID = np.float64(tuple(i / 64.0 for i in range(-1024, 1024)))
_TABLE = torch.tensor(np.maximum(_GRID, 0.0).astype(np.float32))


@triton.jit
def table_kernel(x_ptr, t_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    idx = tl.minimum(tl.maximum((x * 64.0).to(tl.int32) + 1024, 0), 2047)
    tl.store(out_ptr + offs, tl.load(t_ptr + idx, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        table_kernel[(triton.cdiv(n, 1024),)](x, _TABLE, out, n, BLOCK=1024)
        return out
