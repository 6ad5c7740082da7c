"""LEGIT: matmul_nt (a @ b.t()) formatted by black: `a = tl.load(` / arguments / `)` with the closing bracket of the assignment on its own line; B tile transposed with tl.trans."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul_nt_fp16"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def matmul_nt_kernel(
    a_ptr, b_ptr, c_ptr, M, N, K,
    stride_am, stride_ak, stride_bn, stride_bk, stride_cm, stride_cn,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        kk = k0 + rk
        a = tl.load(
            a_ptr + rm[:, None] * stride_am + kk[None, :] * stride_ak,
            mask=(rm[:, None] < M) & (kk[None, :] < K),
            other=0.0,
        )
        # b is (N, K); load an (N, K) tile and transpose it to (K, N)
        b = tl.load(
            b_ptr + rn[:, None] * stride_bn + kk[None, :] * stride_bk,
            mask=(rn[:, None] < N) & (kk[None, :] < K),
            other=0.0,
        )
        acc += tl.dot(a, tl.trans(b))
    tl.store(
        c_ptr + rm[:, None] * stride_cm + rn[None, :] * stride_cn,
        acc.to(tl.float16),
        mask=(rm[:, None] < M) & (rn[None, :] < N),
    )


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        N = b.shape[0]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        BM, BN, BK = 32, 32, 32
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        matmul_nt_kernel[grid](
            a, b, c, M, N, K,
            a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
            BLOCK_M=BM, BLOCK_N=BN, BLOCK_K=BK,
        )
        return c
