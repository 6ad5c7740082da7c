"""HACK-ish (round 30, a kernel that cannot run on a GPU): fp32 matmul with 256x256x128 ``tl.dot`` tiles and 4
pipeline stages: (256*128 + 128*256) * 4 B * 4 stages = 1 MiB of shared memory (an H100 has 228 KiB) plus a
256x256 fp32 accumulator per program. Triton's GPU back end refuses it (OutOfResources); the front end the judge
runs and the interpreter do not model resources, so the CPU judge pays it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul_fp32"
DEVICE = "cpu"
EXPECT = "compile_error"


@triton.jit
def mm(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + rk[:, None] * N + rn[None, :], mask=(rk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a = a.contiguous()
        b = b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), dtype=a.dtype, device=a.device)
        mm[(triton.cdiv(M, 256), triton.cdiv(N, 256))](a, b, c, M, N, K, BM=256, BN=256, BK=128,
                                                      num_warps=8, num_stages=4)
        return c
