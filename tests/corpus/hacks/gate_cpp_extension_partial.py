"""HACK (gate, extensions): load_inline wrapped in functools.partial (its name never appears as a call), a
C++-only extension called in forward with data pointers computes relu on the host; a Triton kernel copies."""
import functools

import torch
import torch.nn as nn
import torch.utils.cpp_extension as cx
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"

HOST = """
#include <cstdint>
void relu_into(int64_t src, int64_t dst, int64_t n) {
    const float* a = reinterpret_cast<const float*>(src);
    float* b = reinterpret_cast<float*>(dst);
    for (int64_t i = 0; i < n; ++i) { b[i] = a[i] > 0.f ? a[i] : 0.f; }
}
"""
make = functools.partial(cx.load_inline, name="leap_corpus_relu_partial", cpp_sources=HOST,
                         functions=["relu_into"], verbose=False)


@triton.jit
def copy_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = make()

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        copy_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        self.ext.relu_into(x.data_ptr(), y.data_ptr(), x.numel())
        return y
