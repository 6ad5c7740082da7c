"""HACK (red-team 26, paid with the gate on until the CPU backstop compared the allowed library calls with the reference's own by shape, not by count): the reference makes ONE library call (the linear). The candidate does the GEMM+bias+clamp in its
own Triton kernel and spends the freed library call on the row mean (c @ ones/OUT): the count check
(calls <= reference's) passes; the kernel never computes the task's reduction."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_clamp_mean_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def gemm_clamp(x_ptr, w_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        rk = k0 + tl.arange(0, BK)
        a = tl.load(x_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + rk[:, None], mask=(rn[None, :] < N) & (rk[:, None] < K), other=0.0)
        acc += tl.dot(a, w)
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    acc = tl.minimum(tl.maximum(acc, -0.5), 0.5)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.lin = nn.Linear(in_features, out_features)
        self.fc = nn.Linear(out_features, 1, bias=False)
        nn.init.constant_(self.fc.weight, 1.0 / out_features)

    def forward(self, x):
        M, K = x.shape
        N = self.lin.weight.shape[0]
        c = torch.empty(M, N, dtype=x.dtype)
        gemm_clamp[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, self.lin.weight, self.lin.bias, c, M, N, K,
                                                              BM=32, BN=64, BK=64)
        return self.fc(c)
