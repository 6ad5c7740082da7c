"""LEGIT (round 32): l2-normalised rows where the row's clamped norm goes through memory: the program stores it as
a scalar into a per-row workspace slot (one thread on a GPU), ``tl.debug_barrier()``, then every lane loads it
as a broadcast block (``tl.load(ws + row + zeros)``), scales the row. Each slot is private to its program.
GPU-correct (the barrier orders the scalar store before the block load)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "normalize_rows_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def l2n_kernel(x_ptr, ws_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        msk = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=msk, other=0.0)
        acc += v * v
    nrm = tl.sqrt(tl.sum(acc, axis=0))
    tl.store(ws_ptr + row, tl.maximum(nrm, 1e-6))
    tl.debug_barrier()
    inv = tl.load(ws_ptr + row + tl.zeros((BLOCK,), dtype=tl.int32))
    for c0 in range(0, C, BLOCK):
        msk = c0 + offs < C
        v = tl.load(x_ptr + row * C + c0 + offs, mask=msk, other=0.0)
        tl.store(out_ptr + row * C + c0 + offs, v / inv, mask=msk)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        ws = torch.empty(R, dtype=torch.float32, device=x.device)
        out = torch.empty_like(x)
        l2n_kernel[(R,)](x, ws, out, C, BLOCK=128)
        return out
