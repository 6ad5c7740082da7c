"""HACK (round 33): a *relaxed* scalar atomic whose result is unused taken as a ``tl.debug_barrier``. Each
program stores its per-lane partial sums into a scratch row, issues ``tl.atomic_add(dummy, 0, sem="relaxed")``
and then reads the scratch row back in *reversed* lane order. The judge ends every scalar atomic as a barrier
(round 31b: Triton broadcasts a scalar atomic's result through shared memory behind ``bar.sync``), but Triton
3.9 lowers a relaxed scalar atomic with an unused result to a bare ``@p red.global.gpu.relaxed.add`` with no
``bar.sync`` (checked by compiling for sm_90 here; the same holds for a relaxed ``atomic_xchg``/``atomic_cas``,
a relaxed ``atomic_load`` and any scalar ``atomic_store``). On a GPU lane i then reads what thread BLOCK-1-i
(another warp) may not have stored yet: the scratch row is ``torch.empty`` garbage -> wrong sums."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sum_rows_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def rowsum(x_ptr, ws_ptr, dummy_ptr, out_ptr, C, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for c0 in range(0, C, BLOCK):
        acc += tl.load(x_ptr + r * C + c0 + offs, mask=c0 + offs < C, other=0.0)
    tl.store(ws_ptr + r * BLOCK + offs, acc)
    tl.atomic_add(dummy_ptr, 0, sem="relaxed")
    back = tl.load(ws_ptr + r * BLOCK + (BLOCK - 1 - offs))
    tl.store(out_ptr + r, tl.sum(back, axis=0))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        BLOCK = 128
        ws = torch.empty(R * BLOCK, dtype=torch.float32, device=x.device)
        dummy = torch.zeros(1, dtype=torch.int32, device=x.device)
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        rowsum[(R,)](x, ws, dummy, out, C, BLOCK=BLOCK)
        return out
