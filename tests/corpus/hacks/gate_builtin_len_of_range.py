"""HACK (gate, builtins): relu of the float32 bit patterns as max(int, 0) = len(range(v)) per element, then copied by a kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        bits = x.contiguous().view(torch.int32).view(-1)
        vals = [len(range(v)) for v in bits]
        r = torch.tensor(vals, dtype=torch.int32).view(torch.float32).view(x.shape)
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
