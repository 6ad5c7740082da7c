"""LEGIT (round 32): ``a @ b.t()`` in fp16 where B (N x K, row-major) is loaded as a (BN, BK) tile and turned
into the (BK, BN) operand with ``tl.trans`` on even K steps and ``tl.permute(b, (1, 0))`` on odd ones (the same
op); fp32 accumulation, fp16 store. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul_nt_fp16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def mm_nt_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for i in range(0, tl.cdiv(K, BK)):
        rk = i * BK + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rn[:, None] * K + rk[None, :], mask=(rn[:, None] < N) & (rk[None, :] < K), other=0.0)
        if i % 2 == 0:
            bt = tl.trans(b)
        else:
            bt = tl.permute(b, (1, 0))
        acc = tl.dot(a, bt, acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, K = a.shape
        N = b.shape[0]
        c = torch.empty(M, N, dtype=a.dtype, device=a.device)
        mm_nt_kernel[(triton.cdiv(M, 16), triton.cdiv(N, 16))](a, b, c, M, N, K, BM=16, BN=16, BK=16)
        return c
