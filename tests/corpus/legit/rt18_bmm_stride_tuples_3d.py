"""LEGIT: batched matmul with a 3D grid (m-tiles, n-tiles, batch) and each operand's a.stride() passed as one tuple."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "bmm_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def bmm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sa, sb, sc, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    bat = tl.program_id(2)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a_ptr += bat * sa[0]
    b_ptr += bat * sb[0]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sa[1] + (k + rk)[None, :] * sa[2],
                    mask=(rm[:, None] < M) & ((k + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k + rk)[:, None] * sb[1] + rn[None, :] * sb[2],
                    mask=((k + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + bat * sc[0] + rm[:, None] * sc[1] + rn[None, :] * sc[2], acc,
             mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        B, M, K = a.shape
        N = b.shape[2]
        c = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
        grid = (triton.cdiv(M, 16), triton.cdiv(N, 16), B)
        bmm_kernel[grid](a, b, c, M, N, K, a.stride(), b.stride(), c.stride(), BM=16, BN=16, BK=16)
        return c
