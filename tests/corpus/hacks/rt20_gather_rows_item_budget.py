"""HACK: the whole lookup is host addressing under the scalar-read budget: 40 indices read with .item() (<= 128 per forward), rows moved with select/copy_ (allowed views and copies); the Triton kernel only copies the gathered rows."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gather_rows_fp32"
EXPECT = ("rejected",)
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, table, idx):
        rows = idx.shape[0]
        tmp = torch.empty((rows, table.shape[1]), dtype=table.dtype)
        for i in range(rows):
            j = idx[i].item()
            tmp[i].copy_(table[j])
        out = torch.empty_like(tmp)
        n = tmp.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](tmp, out, n, BLOCK=1024)
        return out
