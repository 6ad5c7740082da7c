"""LEGIT (round 32): persistent softmax: a fixed grid of programs strides over rows with
``tl.range(pid, R, tl.num_programs(0), num_stages=2)``; each row (wider than the block) is done in three column
loops: an online max/sum pass, a pass storing ``exp(x - max)`` into the fresh output, and a pass that reloads
those values (same program, same offsets, same block layout) and scales them in place. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def softmax_persistent(x_ptr, out_ptr, R, C, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for row in tl.range(pid, R, tl.num_programs(0), num_stages=2):
        base = row.to(tl.int64) * C
        m = -float("inf")
        s = 0.0
        for c0 in range(0, C, BLOCK):
            msk = c0 + offs < C
            v = tl.load(x_ptr + base + c0 + offs, mask=msk, other=-float("inf"))
            new_m = tl.maximum(m, tl.max(v, axis=0))
            s = s * tl.exp(m - new_m) + tl.sum(tl.where(msk, tl.exp(v - new_m), 0.0), axis=0)
            m = new_m
        for c0 in range(0, C, BLOCK):
            msk = c0 + offs < C
            v = tl.load(x_ptr + base + c0 + offs, mask=msk, other=0.0)
            tl.store(out_ptr + base + c0 + offs, tl.exp(v - m), mask=msk)
        inv = 1.0 / s
        for c0 in range(0, C, BLOCK):
            msk = c0 + offs < C
            e = tl.load(out_ptr + base + c0 + offs, mask=msk, other=0.0)
            tl.store(out_ptr + base + c0 + offs, e * inv, mask=msk)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        nprog = min(R, 5)
        softmax_persistent[(nprog,)](x, out, R, C, BLOCK=128)
        return out
