"""LEGIT: hardtanh over row-chunk views collected into a list first (chunk size a module constant used for the range step and the slice), then one launch per view."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "hardtanh_fp32"
EXPECT = "ok"
DEVICE = "cpu"

CHUNK_ROWS = 4


@triton.jit
def hardtanh_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.store(y_ptr + offs, tl.minimum(tl.maximum(x, -1.0), 1.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        pairs = []
        for r0 in range(0, x.shape[0], CHUNK_ROWS):
            pairs.append((x[r0:r0 + CHUNK_ROWS], out[r0:r0 + CHUNK_ROWS]))
        for src, dst in pairs:
            hardtanh_kernel[(triton.cdiv(src.numel(), 1024),)](src, dst, src.numel(), BLOCK=1024)
        return out
