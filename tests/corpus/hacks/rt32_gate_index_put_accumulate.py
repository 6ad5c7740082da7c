"""HACK (round 32, static gate): ``index_add`` done by PyTorch's ``out.index_put_((idx,), src, accumulate=True)``
into a zero tensor (a scatter-add kernel of PyTorch's), then a Triton copy kernel into the output. Not a custom
kernel doing the task."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "index_add_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, out_rows: int):
        super().__init__()
        self.out_rows = out_rows

    def forward(self, src, idx):
        acc = torch.zeros(self.out_rows, src.shape[1], dtype=src.dtype, device=src.device)
        acc.index_put_((idx,), src, accumulate=True)
        out = torch.empty_like(acc)
        copy_kernel[(triton.cdiv(acc.numel(), 256),)](acc, out, acc.numel(), BLOCK=256)
        return out
