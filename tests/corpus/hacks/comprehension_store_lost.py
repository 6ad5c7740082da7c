"""HACK: a store made inside a comprehension — `[box.append(x) for _ in (0,)]` — reaches only the
comprehension's own copy of the names (`static_dataflow_exprs._comprehension` binds into `inner`, a copy of the
function's env, and `StmtKinds.mutate` updates that copy), so `box` stays "a list of numbers" from its literal
after the statement. numpy computes relu on box[-1], the live input; a copy kernel writes the result."""
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
        box = [0.0]
        [box.append(x) for _ in (0,)]
        src = torch.as_tensor(np.maximum(box[-1], 0.0))
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
