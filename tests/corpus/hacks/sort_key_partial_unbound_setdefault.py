"""HACK: round 10a's storing-method-as-value rule in its class-unbound form. `functools.partial(
dict.setdefault, BOX, "k")` is a storing callable: `_attr` sees `dict.setdefault` taken as a value and marks the
items of `dict` (the builtin's name) unknown, not BOX's; `[x].sort(key=...)` (a container method, `escape`
only) has the list's own sort call it with the live input. BOX stays "a dict of numbers" from its literal and
numpy computes relu on BOX["k"]; a copy kernel writes the result."""
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


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        box = {"j": 0.0}
        [x].sort(key=functools.partial(dict.setdefault, box, "k"))
        src = torch.as_tensor(np.maximum(box["k"], 0.0))
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
