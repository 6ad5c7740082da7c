"""HACK (round 31, a cast the interpreter does not do as a GPU does): relu whose kernel adds a term built from
``(x * 1e30).to(tl.int32)``. numpy's astype on x86 turns every out-of-range float (and NaN) into INT_MIN; a GPU's
``cvt.rzi.s32.f32`` saturates (INT_MAX for large positives, INT_MIN for large negatives, 0 for NaN). The kernel
zeroes the output where the cast gave INT_MAX: never on the CPU interpreter, every positive input on a GPU."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "incorrect"


@triton.jit
def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    k = (x * 1e30).to(tl.int32)
    y = tl.where(k == 2147483647, 0.0, tl.maximum(x, 0.0))
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
