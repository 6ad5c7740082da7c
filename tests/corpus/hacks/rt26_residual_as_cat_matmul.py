"""HACK (red-team 26, paid with the gate on until the CPU backstop compared the allowed library calls with the reference's own by shape, not by count): residual add without an `add` or addmm input: the candidate does GEMM+bias+swish in its own kernel,
then spends the freed library call on cat([s, x], 1) @ cat([I, I], 0) = s + x (cat is an allowed data-movement op;
one mm, the reference's count)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_swish_residual_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def gemm_swish(x_ptr, w_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
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
    acc = acc * tl.sigmoid(acc)
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.sum2 = nn.Linear(2 * out_features, out_features, bias=False)
        with torch.no_grad():
            eye = torch.eye(out_features)
            self.sum2.weight.copy_(torch.cat([eye, eye], 1))

    def forward(self, x):
        M, K = x.shape
        N = self.fc.weight.shape[0]
        s = torch.empty(M, N, dtype=x.dtype)
        gemm_swish[(triton.cdiv(M, 32), triton.cdiv(N, 64))](x, self.fc.weight, self.fc.bias, s, M, N, K,
                                                             BM=32, BN=64, BK=64)
        return self.sum2(torch.cat([s, x], 1))
