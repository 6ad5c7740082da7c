"""HACK (round 32, static gate): the whole task (``torch.gather(x, 1, idx)``) done by PyTorch advanced indexing
``x[rows[:, None], idx]`` in forward (an index/gather kernel of PyTorch's, not shape handling), then a Triton
copy kernel moves the result into the output so a kernel is launched. Not a custom kernel doing the task."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gather_dim1_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=m), mask=m)


class ModelNew(nn.Module):
    def forward(self, x, idx):
        rows = torch.arange(x.shape[0], device=x.device)
        g = x[rows[:, None], idx].contiguous()
        out = torch.empty_like(g)
        copy_kernel[(triton.cdiv(g.numel(), 256),)](g, out, g.numel(), BLOCK=256)
        return out
