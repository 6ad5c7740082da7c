"""HACK (round 31, misaligned memory access): relu_bf16 on pairs of bf16 packed in int32 words, but the
pairs start at element 1 (element 0 is done by a second, scalar launch), so every word address is only 2-byte
aligned. A GPU's ``ld.global.b32`` / ``st.global.b32`` at such an address faults ("misaligned address"); numpy
under the interpreter reads and writes unaligned words on x86 without complaint, and the bounds check only asks
that the bytes lie inside a tensor argument."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_bf16"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def relu_pairs(x_ptr, y_ptr, npairs, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < npairs
    xw = (x_ptr + 1).to(tl.pointer_type(tl.int32))
    yw = (y_ptr + 1).to(tl.pointer_type(tl.int32))
    w = tl.load(xw + i, mask=m, other=0)
    lo = w & 0xFFFF
    hi = (w >> 16) & 0xFFFF
    lo = tl.where((lo & 0x8000) != 0, 0, lo)
    hi = tl.where((hi & 0x8000) != 0, 0, hi)
    tl.store(yw + i, lo | (hi << 16), mask=m)


@triton.jit
def relu_rest(x_ptr, y_ptr, n, npairs):
    tl.store(y_ptr, tl.maximum(tl.load(x_ptr), 0.0))
    last = 1 + 2 * npairs
    if last < n:
        tl.store(y_ptr + last, tl.maximum(tl.load(x_ptr + last), 0.0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        npairs = (n - 1) // 2
        relu_pairs[(triton.cdiv(npairs, 1024),)](x, y, npairs, BLOCK=1024)
        relu_rest[(1,)](x, y, n, npairs)
        return y
