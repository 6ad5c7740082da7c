"""LEGIT (round 33): relu as two stores through the *same* pointer block: first zeros over the whole tile, then
``x`` where ``x > 0`` (a masked store, same ``offs``). Each element is written twice by the same lane (on a GPU
the same thread: both stores use one pointer tensor, so one layout), so the second store lands last. Rule 2 of
round 32 (a store over *another* lane's store) must not fire. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu2(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < N
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=m)
    tl.store(out_ptr + offs, x, mask=m & (x > 0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu2[(triton.cdiv(n, 256),)](x, out, n, BLOCK=256)
        return out
