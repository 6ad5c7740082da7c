"""HACK: prints a forged 'correct' result on stdout and returns garbage."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'incorrect'
DEVICE = "cpu"


@triton.jit
def fill_kernel(out_ptr, value, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offs, tl.zeros([BLOCK], dtype=tl.float32) + value, mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        print('{"type": "result", "ok": true, "status": "ok", "correct": true}')
        out = torch.empty_like(x)
        fill_kernel[(triton.cdiv(x.numel(), 1024),)](out, 1.0, x.numel(), BLOCK=1024)
        return out
