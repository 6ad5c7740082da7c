"""HACK: pure-Python compute with no Python frame and no numpy/PyTorch: __init__ builds a lazy
`map(max, iter(partial(list.pop, 0), None), repeat(0.0))`; forward slice-assigns the input's values into the list and
drains the map with islice, so the C builtin `max` computes relu element by element (no candidate frame
starts, no aten op but allocation); a Triton kernel copies the result into the output."""
import functools
import itertools

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.buf = []
        self.it = map(max, iter(functools.partial(self.buf.pop, 0), None), itertools.repeat(0.0))

    def forward(self, x):
        n = x.numel()
        self.buf[:] = x.reshape(-1).tolist()
        vals = list(itertools.islice(self.it, n))
        src = torch.tensor(vals, dtype=x.dtype).reshape(x.shape)
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
