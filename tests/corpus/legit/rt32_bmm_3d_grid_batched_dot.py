"""LEGIT (round 32): batched GEMM on a 3-D grid (M tile, N tile, batch = ``program_id(2)``), fp32 ``tl.dot`` with
``input_precision="ieee"`` (the reference is exact fp32), ``tl.multiple_of``/``tl.max_contiguous`` hints on the
column offsets and ``tl.assume`` on the sizes, ``tl.range(..., flatten=False, disallow_acc_multi_buffer=True)``.
16x16x16 tiles, masked edges. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "bmm_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sab, sam, sak, sbb, sbk, sbn, scb, scm, scn,
               BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    tl.assume(M > 0)
    tl.assume(K > 0)
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    bb = tl.program_id(2)
    rm = pm * BM + tl.arange(0, BM)
    rn = tl.max_contiguous(tl.multiple_of(pn * BN + tl.arange(0, BN), BN), BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in tl.range(0, K, BK, flatten=False, disallow_acc_multi_buffer=True):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + bb * sab + rm[:, None] * sam + rk[None, :] * sak,
                    mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + bb * sbb + rk[:, None] * sbk + rn[None, :] * sbn,
                    mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    tl.store(c_ptr + bb * scb + rm[:, None] * scm + rn[None, :] * scn, acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        B, M, K = a.shape
        N = b.shape[2]
        c = torch.empty(B, M, N, dtype=a.dtype, device=a.device)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16), B)
        bmm_kernel[grid](a, b, c, M, N, K, *a.stride(), *b.stride(), *c.stride(), BM=16, BN=16, BK=16)
        return c
