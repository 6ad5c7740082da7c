"""LEGIT: cumsum by tl.associative_scan over a (value, flag) tuple with a segmented-add combine function, chunked with the running total carried between chunks via tl.sum."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def _seg_add(v_a, f_a, v_b, f_b):
    # segmented scan: a set flag on b restarts the sum
    return tl.where(f_b != 0, v_b, v_a + v_b), f_a | f_b


@triton.jit
def cumsum_kernel(x_ptr, y_ptr, n_cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    carry = tl.zeros([1], dtype=tl.float32)
    for start in tl.range(0, n_cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < n_cols
        x = tl.load(x_ptr + row * stride + offs, mask=mask, other=0.0)
        flags = tl.zeros([BLOCK], dtype=tl.int32)
        scanned, _ = tl.associative_scan((x, flags), 0, _seg_add)
        tl.store(y_ptr + row * stride + offs, scanned + carry, mask=mask)
        carry += tl.sum(x, axis=0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n_cols = x.shape[-1]
        cumsum_kernel[(x.numel() // n_cols,)](x, y, n_cols, n_cols, BLOCK=64)
        return y
