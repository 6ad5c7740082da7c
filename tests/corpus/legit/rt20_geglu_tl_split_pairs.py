"""LEGIT: geglu in bf16 loading the two halves as one [BLOCK, 2] tile (second axis strided by the half width) and separating them with tl.split; exact GELU on the first half in fp32."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "geglu_bf16"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def geglu_kernel(x_ptr, y_ptr, half, stride_x, stride_y, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    pair = tl.arange(0, 2)
    m = cols < half
    ptrs = x_ptr + row * stride_x + cols[:, None] + pair[None, :] * half
    ab = tl.load(ptrs, mask=m[:, None], other=0.0).to(tl.float32)
    a, b = tl.split(ab)
    g = 0.5 * a * (1.0 + tl.erf(a * 0.7071067811865476))
    tl.store(y_ptr + row * stride_y + cols, (g * b).to(tl.bfloat16), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, width = x.shape
        half = width // 2
        y = torch.empty((rows, half), dtype=x.dtype, device=x.device)
        geglu_kernel[(rows, triton.cdiv(half, 64))](x, y, half, x.stride(0), y.stride(0), BLOCK=64)
        return y
