"""FAULT: floods stdout (hundreds of MB) while computing the right answer. The judge must survive it and
give a verdict: ok, the candidate's runtime_error, or timeout where writing 1.8 GB takes longer than the
limit (the case's 10 s: the six runs took 10.6 s on the project's 2-core CPU, 2026-12-03 14:10 UTC)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = ('ok', 'runtime_error', 'timeout')
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        line = 'x' * (1 << 20)
        for _ in range(300):
            print(line)
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
