"""FAULT: a device-side assert fires (GPU: the interpreter skips device asserts)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'runtime_error'
DEVICE = "cuda"


@triton.jit(debug=True)
def assert_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs, mask=offs < n, other=0.0)
    tl.device_assert(x > 1e30, "assert fired")
    tl.store(out_ptr + offs, x, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        assert_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
