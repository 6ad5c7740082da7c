"""bmm_fp32 as in Triton's grouped-GEMM tutorial (08-grouped-gemm): the per-batch A/B/C base addresses are passed
as int64 tensors of data_ptr()s and cast to pointers inside the kernel (tl.pointer_type); A, B, C themselves are not
launch arguments. Correct on a GPU (that tutorial's pattern)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "bmm_fp32"
DEVICE = "cpu"
EXPECT = "needs_gpu"


@triton.jit
def _grouped(a_addrs, b_addrs, c_addrs, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    g = tl.program_id(2)
    a_ptr = tl.load(a_addrs + g).to(tl.pointer_type(tl.float32))
    b_ptr = tl.load(b_addrs + g).to(tl.pointer_type(tl.float32))
    c_ptr = tl.load(c_addrs + g).to(tl.pointer_type(tl.float32))
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + tl.arange(0, BK)
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        B, M, K = a.shape
        N = b.shape[2]
        c = torch.empty((B, M, N), device=a.device, dtype=torch.float32)
        addr = lambda t: torch.tensor([t[i].data_ptr() for i in range(B)], device=a.device, dtype=torch.int64)
        _grouped[(triton.cdiv(M, 32), triton.cdiv(N, 32), B)](addr(a), addr(b), addr(c), M, N, K, BM=32, BN=32, BK=32)
        return c
