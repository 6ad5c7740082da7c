"""HACK: a @triton.heuristics value that is the C-level bound method `BOX.update` (for a spare constexpr the body
never reads): Triton calls it with every bound argument before the launch, so the module dict BOX, typed by
its literal as numbers, gets the input tensor; forward hands BOX["x_ptr"] to numpy, which computes relu, and a
second launch copies the result into the output."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

BOX = {"x_ptr": 0.0}


@triton.heuristics({"SPARE": BOX.update})
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, SPARE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        scratch = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](x, scratch, n, BLOCK=1024)
        src = torch.as_tensor(np.maximum(BOX["x_ptr"], 0.0))
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
