"""LEGIT: matmul with a tl.dot kernel whose launch helper picks block sizes from the problem size through a
small local class of constants and a min() over Python ints; output allocated with new_empty."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


def mm(a, b):
    class Tile:
        BM = 32
        BN = 32
        BK = 32
    M, K = a.shape
    _, N = b.shape
    bm = min(Tile.BM, triton.next_power_of_2(M))
    bm = max(bm, 16)
    c = a.new_empty((M, N))
    grid = (triton.cdiv(M, bm), triton.cdiv(N, Tile.BN))
    mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                    BM=bm, BN=Tile.BN, BK=Tile.BK)
    return c


class ModelNew(nn.Module):
    def forward(self, a, b):
        return mm(a, b)
