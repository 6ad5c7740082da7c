"""LEGIT (round 33, debatable style): the row total is stashed through a *broadcast* pointer block
(``ws + r + offs*0``, no mask): every thread stores the same value to one address; then every thread reads it
back through the same broadcast block and the row's output is written from it. On a GPU each thread's reload
sees its own store or another thread's store of the *same* value (BLOCK = 256 > the 128 threads: no element is
replicated onto a thread that did not store), so the result is exact. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def rowsum_bcast(x_ptr, ws_ptr, out_ptr, C, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        acc += tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=0.0)
    tot = tl.sum(acc, axis=0)
    tl.store(ws_ptr + r + offs * 0, tot + tl.zeros((BLOCK,), dtype=tl.float32))
    back = tl.load(ws_ptr + r + offs * 0)
    tl.store(out_ptr + r + offs, back, mask=offs == 0)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.empty(R, dtype=torch.float32, device=x.device)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        rowsum_bcast[(R,)](x, ws, out, C, BLOCK=256, num_warps=4)
        return out
