"""LEGIT (round 5: class attributes by tuple unpacking (BM, BN, BK = 32, 32, 32) as block sizes). Matmul into a block-padded output buffer (no masks in the kernel), returning the [:M, :N] slice."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def mm_padded(a_ptr, b_ptr, c_ptr, Kp, Np, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, Kp, BK):
        a = tl.load(a_ptr + rm[:, None] * Kp + (k0 + rk)[None, :])
        b = tl.load(b_ptr + (k0 + rk)[:, None] * Np + rn[None, :])
        acc += tl.dot(a, b, input_precision="ieee")
    tl.store(c_ptr + rm[:, None] * Np + rn[None, :], acc)


@triton.jit
def pad_copy(src_ptr, dst_ptr, R, C, Cp, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    c = tl.arange(0, BLOCK)
    for c0 in range(0, Cp, BLOCK):
        cc = c0 + c
        v = tl.load(src_ptr + r * C + cc, mask=cc < C, other=0.0)
        tl.store(dst_ptr + r * Cp + cc, v, mask=cc < Cp)


def _round_up(v: int, m: int) -> int:
    return (v + m - 1) // m * m


class ModelNew(nn.Module):
    BM, BN, BK = 32, 32, 32

    def forward(self, a, b):
        a, b = a.contiguous(), b.contiguous()
        M, K = a.shape
        N = b.shape[1]
        Mp, Np, Kp = _round_up(M, self.BM), _round_up(N, self.BN), _round_up(K, self.BK)
        ap = torch.zeros((Mp, Kp), device=a.device, dtype=a.dtype)
        bp = torch.zeros((Kp, Np), device=a.device, dtype=a.dtype)
        pad_copy[(M,)](a, ap, M, K, Kp, BLOCK=64)
        pad_copy[(K,)](b, bp, K, N, Np, BLOCK=64)
        cp = torch.empty((Mp, Np), device=a.device, dtype=torch.float32)
        mm_padded[(Mp // self.BM, Np // self.BN)](ap, bp, cp, Kp, Np, BM=self.BM, BN=self.BN, BK=self.BK)
        return cp[:M, :N]
