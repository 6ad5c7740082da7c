"""LEGIT (round 33): causal scaled softmax whose scale lives in a one-element buffer (``register_buffer``,
written by torch before any launch); each program re-reads it with a scalar ``tl.load(scale_ptr)`` inside its
column loop while its lanes store the output elsewhere (never into the scale buffer). A scalar load of memory
the launch never wrote races with nothing. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale_mask_softmax_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def causal_softmax(x_ptr, scale_ptr, y_ptr, seq, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    q = row % seq
    offs = tl.arange(0, BLOCK)
    m = tl.full((BLOCK,), float("-inf"), dtype=tl.float32)
    for c0 in range(0, seq, BLOCK):
        sc = tl.load(scale_ptr)
        c = c0 + offs
        v = tl.load(x_ptr + row * seq + c, mask=(c < seq) & (c <= q), other=float("-inf")) * sc
        m = tl.maximum(m, v)
    mx = tl.max(m, axis=0)
    s = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, seq, BLOCK):
        sc = tl.load(scale_ptr)
        c = c0 + offs
        v = tl.load(x_ptr + row * seq + c, mask=(c < seq) & (c <= q), other=float("-inf")) * sc
        e = tl.where((c < seq) & (c <= q), tl.exp(v - mx), 0.0)
        s += e
        tl.store(y_ptr + row * seq + c, e, mask=c < seq)
    den = tl.sum(s, axis=0)
    for c0 in range(0, seq, BLOCK):
        c = c0 + offs
        e = tl.load(y_ptr + row * seq + c, mask=c < seq, other=0.0)
        tl.store(y_ptr + row * seq + c, e / den, mask=c < seq)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("scale_t", torch.full((1,), 0.125))

    def forward(self, x):
        n = x.shape[-1]
        x2 = x.contiguous().reshape(-1, n)
        y = torch.empty_like(x2)
        causal_softmax[(x2.shape[0],)](x2, self.scale_t, y, n, BLOCK=8)
        return y.reshape(x.shape)
