"""LEGIT: an autotuned Triton matmul with a sane config list, fp32 accumulation."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul"
EXPECT = "ok"
DEVICE = "cuda"  # the Triton interpreter cannot autotune (no active driver)


@triton.autotune(configs=[triton.Config({"BM": 16, "BN": 16, "BK": 16}, num_warps=4),
                          triton.Config({"BM": 32, "BN": 32, "BK": 32}, num_warps=4)], key=["M", "N", "K"])
@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        kk = k0 + rk
        a = tl.load(a_ptr + rm[:, None] * K + kk[None, :], mask=(rm[:, None] < M) & (kk[None, :] < K), other=0.0)
        b = tl.load(b_ptr + kk[:, None] * N + rn[None, :], mask=(kk[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        _, N = b.shape
        c = torch.empty((M, N), device=a.device, dtype=torch.float32)

        def grid(meta):
            return (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))

        mm_kernel[grid](a, b, c, M, N, K)
        return c
