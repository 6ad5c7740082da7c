"""LEGIT: ReLU times libdevice.cyl_bessel_i0(0) (= 1), a libdevice function the CPU interpreter does not compute: needs_gpu there (not judged, never the candidate's runtime_error), ok on a GPU."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra import libdevice

TASK = "relu"
EXPECT = "needs_gpu"
EXPECT_GPU = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0) * libdevice.cyl_bessel_i0(x * 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
