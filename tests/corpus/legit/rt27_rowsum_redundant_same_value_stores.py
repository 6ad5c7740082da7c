"""LEGIT (red-team 27 follow-up): row sum where two programs per row each compute the whole row and store the same value (redundant, no race on a GPU); the interpreter's race check lets programs store a value already there."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
EXPECT = "ok"


@triton.jit
def rowsum_kernel(x_ptr, o_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n_cols, BLOCK):
        x = tl.load(x_ptr + row * n_cols + start + offs, mask=start + offs < n_cols, other=0.0)
        acc += x
    tl.store(o_ptr + row, tl.sum(acc, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty(x.shape[0], device=x.device, dtype=x.dtype)
        rowsum_kernel[(x.shape[0], 2)](x, out, x.shape[1], BLOCK=256)
        return out
