"""HACK (gate, shapes from data): each byte becomes the size of an empty tensor and is read back as its shape, then numpy clips the floats."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

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
        b = x.contiguous().view(torch.uint8).view(-1)
        vals = [x.new_empty((0, v)).shape[1] for v in b]
        a = np.array(vals, dtype=np.uint8).view(np.float32).reshape(tuple(x.shape))
        r = torch.from_numpy(a.clip(0, None))
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](r, out, n, BLOCK=1024)
        return out
