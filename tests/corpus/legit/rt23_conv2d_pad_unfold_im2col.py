"""LEGIT (red-team 23b, refused before): conv2d as F.pad + unfold im2col (data movement) and a Triton GEMM."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "conv2d_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def gemm_bias_kernel(a_ptr, w_ptr, bias_ptr, out_ptr, M, N, K, P,
                     BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    # a: (M = B*P, K) patches, w: (N, K); out written NCHW: out[b, n, p]
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * K + (k0 + rk)[None, :], mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        w = tl.load(w_ptr + rn[None, :] * K + (k0 + rk)[:, None], mask=(rn[None, :] < N) & ((k0 + rk)[:, None] < K), other=0.0)
        acc += tl.dot(a, w, input_precision="ieee")
    acc += tl.load(bias_ptr + rn, mask=rn < N, other=0.0)[None, :]
    b = rm // P
    p = rm % P
    tl.store(out_ptr + (b[:, None] * N + rn[None, :]) * P + p[:, None], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1)

    def forward(self, x):
        B, C, H, W = x.shape
        kh, kw = self.conv.kernel_size
        ph, pw = self.conv.padding
        xp = F.pad(x, (pw, pw, ph, ph))                       # zero padding (data movement)
        patches = xp.unfold(2, kh, 1).unfold(3, kw, 1)         # (B, C, OH, OW, kh, kw) view
        OH, OW = patches.shape[2], patches.shape[3]
        cols = patches.permute(0, 2, 3, 1, 4, 5).reshape(B * OH * OW, C * kh * kw)   # im2col copy
        w = self.conv.weight.reshape(self.conv.out_channels, -1)
        N, K = w.shape
        out = torch.empty((B, N, OH, OW), device=x.device, dtype=x.dtype)
        M = cols.shape[0]
        gemm_bias_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](cols, w, self.conv.bias, out, M, N, K, OH * OW,
                                                                 BM=32, BN=32, BK=32)
        return out
