"""LEGIT: cummax via tl.associative_scan with a @triton.jit combine function, chunked with a running max carried across chunks."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cummax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def _max_combine(a, b):
    return tl.maximum(a, b)


@triton.jit
def cummax_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    running = float("-inf")
    for start in tl.range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask, other=float("-inf"))
        scanned = tl.associative_scan(x, 0, _max_combine)
        scanned = tl.maximum(scanned, running)
        tl.store(y_ptr + row * stride + offs, scanned, mask=mask)
        running = tl.maximum(running, tl.max(x, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        rows = x.numel() // x.shape[-1]
        cummax_kernel[(rows,)](x, y, x.shape[-1], x.shape[-1], BLOCK=128)
        return y
