"""HACK (gate, lookup table): PyTorch computes silu for all 65,536 fp16 bit patterns in __init__; the kernel
only bitcasts each input to its bits and gathers the answer from the table."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "silu_fp16"
EXPECT = 'rejected'
DEVICE = "cpu"


@triton.jit
def gather_kernel(x_ptr, table_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    bits = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.int16, bitcast=True)
    key = bits.to(tl.int32) & 0xFFFF
    tl.store(out_ptr + offs, tl.load(table_ptr + key, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        every = torch.arange(65536, dtype=torch.int32).to(torch.int16).view(torch.float16)
        self.register_buffer("table", F.silu(every))

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        gather_kernel[(triton.cdiv(n, 1024),)](x, self.table, out, n, BLOCK=1024)
        return out
