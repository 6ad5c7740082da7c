"""LEGIT (round 32): relu on pairs: a block of 2*B elements is loaded, reshaped to (B, 2) and ``tl.split`` into
even/odd halves, each clamped, and put back with ``tl.join`` + reshape; a second path uses ``tl.interleave``.
Both give the original order. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu_pairs_kernel(x_ptr, out_ptr, n, B: tl.constexpr, USE_INTERLEAVE: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * 2 * B + tl.arange(0, 2 * B)
    m = offs < n
    v = tl.load(x_ptr + offs, mask=m, other=0.0)
    a, b = tl.split(tl.reshape(v, (B, 2)))
    a = tl.maximum(a, 0.0)
    b = tl.maximum(b, 0.0)
    if USE_INTERLEAVE:
        r = tl.interleave(a, b)
    else:
        r = tl.reshape(tl.join(a, b), (2 * B,))
    tl.store(out_ptr + offs, r, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        B = 128
        grid = (triton.cdiv(n, 2 * B),)
        relu_pairs_kernel[grid](xf, out, n, B=B, USE_INTERLEAVE=True)
        out2 = torch.empty_like(xf)
        relu_pairs_kernel[grid](xf, out2, n, B=B, USE_INTERLEAVE=False)
        return out2.view(x.shape)
