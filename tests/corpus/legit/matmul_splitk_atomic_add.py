"""LEGIT (split-K GEMM adding partial tiles with tl.atomic_add: on a GPU the sum order, so the last bits, change run to run; refused as reading unwritten memory on the H200 before 2026-12-03 17:25). Split-K fp32 matmul: each program computes a partial tile over a K slice and atomically adds it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def mm_splitk(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, SPLIT: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    pid_k = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(pid_k * BK, K, BK * SPLIT):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * sam + rk[None, :] * sak, mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * sbk + rn[None, :] * sbn, mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    mask = (rm[:, None] < M) & (rn[None, :] < N)
    tl.atomic_add(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=mask)


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[1]
        c = torch.zeros((M, N), device=a.device, dtype=torch.float32)
        BM, BN, BK, SPLIT = 64, 64, 32, 8
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN), SPLIT)
        mm_splitk[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                        BM=BM, BN=BN, BK=BK, SPLIT=SPLIT)
        return c
