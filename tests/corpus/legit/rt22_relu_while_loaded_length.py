"""LEGIT: relu; the element count is `tl.load`ed from a device tensor and a `while off < n:` loop walks it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, y_ptr, n_ptr, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    n = tl.load(n_ptr)
    off = pid * CHUNK
    stop = off + CHUNK
    while off < n and off < stop:
        offs = off + tl.arange(0, BLOCK)
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0)
        tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)
        off += BLOCK


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        nt = torch.tensor([n], device=x.device, dtype=torch.int32)
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, nt, CHUNK=1024, BLOCK=256)
        return y
