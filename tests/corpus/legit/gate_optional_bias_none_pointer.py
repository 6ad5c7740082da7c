"""LEGIT (optional pointers): a fused add kernel with an optional third operand passed as None and a HAS_Z constexpr; ModelNew's forward passes None for it; sizes via divmod on numel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def add3_kernel(x_ptr, y_ptr, z_ptr, out_ptr, n, HAS_Z: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    acc = tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask)
    if HAS_Z:
        acc += tl.load(z_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, acc, mask=mask)


def fused_add(x, y, z=None, block=1024):
    out = torch.empty_like(x)
    n = x.numel()
    full, rest = divmod(n, block)
    add3_kernel[(full + (1 if rest else 0),)](x, y, z, out, n, HAS_Z=z is not None, BLOCK=block)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, y):
        return fused_add(x, y)
