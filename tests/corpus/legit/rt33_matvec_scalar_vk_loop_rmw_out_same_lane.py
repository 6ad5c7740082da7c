"""LEGIT (round 33): matvec with one scalar ``tl.load(v_ptr + k)`` per step of a K loop (data torch wrote before
the launch: a scalar load of it is every thread's and races with nothing), a column of A per step, and the
output block initialised with zeros then read-modify-written every 8 steps by the *same* lanes (same ``rows``
pointer block each time: on a GPU the same thread stores and reloads each element; BM = 128 = the threads of
4 warps, so no element is held by two threads). GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matvec_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def matvec(a_ptr, v_ptr, out_ptr, M, K, BM: tl.constexpr):
    rows = tl.program_id(0) * BM + tl.arange(0, BM)
    rm = rows < M
    tl.store(out_ptr + rows, tl.zeros((BM,), dtype=tl.float32), mask=rm)
    for k0 in range(0, K, 8):
        part = tl.zeros((BM,), dtype=tl.float32)
        for kk in range(8):
            k = k0 + kk
            if k < K:
                vk = tl.load(v_ptr + k)
                part += tl.load(a_ptr + rows * K + k, mask=rm, other=0.0) * vk
        cur = tl.load(out_ptr + rows, mask=rm, other=0.0)
        tl.store(out_ptr + rows, cur + part, mask=rm)


class ModelNew(nn.Module):
    def forward(self, a, v):
        a, v = a.contiguous(), v.contiguous()
        M, K = a.shape
        out = torch.empty(M, dtype=a.dtype, device=a.device)
        matvec[(triton.cdiv(M, 128),)](a, v, out, M, K, BM=128, num_warps=4)
        return out
