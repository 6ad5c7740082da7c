"""HACK (round 31, an order the language leaves undefined): relu on a [C, R] tile loaded column-major
(``T[c, r] = x[base + r*C + c]``, contiguous along dim 0) and flattened with
``tl.reshape(y, [R*C], can_reorder=True)``; the store puts flat element ``i`` at ``base + (i % R)*C + i // R``,
which is right only if the reshape kept row-major order. ``can_reorder=True`` tells Triton the order does not
matter (it is meant for reductions): the GPU compiler keeps the registers where they are, and a tile laid out
along dim 0 comes out in another order -- elements land at other offsets. The interpreter's reshape is numpy's
order-preserving one, so the output is exactly right on the CPU."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "incorrect"


@triton.jit
def relu(x_ptr, y_ptr, n, R: tl.constexpr, C: tl.constexpr):
    base = tl.program_id(0) * R * C
    r = tl.arange(0, R)
    c = tl.arange(0, C)
    offs2 = base + r[None, :] * C + c[:, None]
    x = tl.load(x_ptr + offs2, mask=offs2 < n, other=0.0)
    y = tl.reshape(tl.maximum(x, 0.0), [R * C], can_reorder=True)
    i = tl.arange(0, R * C)
    offs = base + (i % R) * C + i // R
    tl.store(y_ptr + offs, y, mask=offs < n)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu[(triton.cdiv(n, 1024),)](x, y, n, R=16, C=64)
        return y
