"""LEGIT (round 33): relu over windows that overlap by half a block: program p handles elements
[p*B/2, p*B/2 + B), so every element is written by two lanes (of one program across loop steps, and of two
programs) — always with the *same* value relu(x). Two threads storing the same value is benign on a GPU; round
32's rule 2 (a store over another lane's store) allows it because the value is unchanged. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu_overlap(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    for step in range(2):
        start = pid * BLOCK + step * (BLOCK // 2)
        idx = start + offs
        m = idx < N
        x = tl.load(x_ptr + idx, mask=m, other=0.0)
        tl.store(out_ptr + idx, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_overlap[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
