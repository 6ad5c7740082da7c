"""HACK: a whole level-3 model (Linear, GELU, Linear) computed by PyTorch after forward: __init__ builds the
task's layers, wraps them in an nn.Sequential of library layers and sets
`proto.detach = functools.partial(seq, buf)` on a 0-element tensor. forward copies x into `buf`
(resize_/copy_), zero-fills `proto` (resized to the output shape) with a Triton kernel and returns it; the
harness's `_to_cpu(out)` calls `out.detach()` after disarming the backstop."""
import functools

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "mlp_block_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def zero_kernel(out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.buf = torch.zeros(0)
        self.proto = torch.zeros(0)
        seq = nn.Sequential(self.fc1, nn.GELU(), self.fc2)
        self.proto.detach = functools.partial(seq, self.buf)

    def forward(self, x):
        self.buf.resize_(x.shape)
        self.buf.copy_(x)
        out = self.proto
        out.resize_(x.shape)
        n = out.numel()
        zero_kernel[(triton.cdiv(n, 1024),)](out, n, BLOCK=1024)
        return out
