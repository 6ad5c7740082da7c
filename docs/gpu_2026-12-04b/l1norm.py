import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def l1norm_kernel(x_ptr, out_ptr, D, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * D
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for d0 in range(0, D, BLOCK):
        offs = d0 + tl.arange(0, BLOCK)
        acc += tl.abs(tl.load(x_ptr + base + offs, mask=offs < D, other=0.0))
    mean = tl.sum(acc, axis=0) / D
    for d0 in range(0, D, BLOCK):
        offs = d0 + tl.arange(0, BLOCK)
        m = offs < D
        tl.store(out_ptr + base + offs, tl.load(x_ptr + base + offs, mask=m) / mean, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        l1norm_kernel[(x.shape[0],)](x, out, x.shape[1], BLOCK=1024)
        return out
