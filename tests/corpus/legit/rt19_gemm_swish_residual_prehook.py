"""LEGIT: fused gemm + SiLU + residual; single-config autotune whose Config carries a pre_hook (asserts contiguity on nargs), tl.dot with out_dtype."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_swish_residual_fp32"
EXPECT = "ok"
DEVICE = "cpu"


def _check_contig(nargs):
    assert nargs["x_ptr"].stride(-1) == 1


@triton.autotune(configs=[triton.Config({"BLOCK_M": 16, "BLOCK_N": 32, "BLOCK_K": 32}, num_warps=4,
                                        pre_hook=_check_contig)], key=["N", "K"])
@triton.jit
def gemm_swish_res_kernel(x_ptr, w_ptr, b_ptr, y_ptr, M, N, K,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, K, BLOCK_K):
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :], mask=(rm[:, None] < M) & ((k + rk)[None, :] < K),
                    other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None], mask=(rn[None, :] < N) & ((k + rk)[:, None] < K),
                    other=0.0)
        acc += tl.dot(a, w, out_dtype=tl.float32, input_precision="ieee")
    acc += tl.load(b_ptr + rn, mask=rn < N, other=0.0)[None, :]
    out_mask = (rm[:, None] < M) & (rn[None, :] < N)
    res = tl.load(x_ptr + rm[:, None] * K + rn[None, :], mask=out_mask, other=0.0)  # N == K (residual)
    y = acc * tl.sigmoid(acc) + res
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], y, mask=out_mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)

    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.fc.out_features
        y = torch.empty((M, N), device=x.device, dtype=x.dtype)
        grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))
        gemm_swish_res_kernel[grid](x, self.fc.weight, self.fc.bias, y, M, N, K)
        return y
