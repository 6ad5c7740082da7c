"""LEGIT (round 32): bf16 GEMM on a 2-D grid (``program_id(0)`` = M tile, ``program_id(1)`` = N tile) with
in-kernel ``tl.make_tensor_descriptor`` for A, B and C (TMA on Hopper; the host registers the scratch allocator
with ``triton.set_allocator`` as Triton requires), fp32 accumulator via ``tl.dot(..., acc)``, bf16 store through
the descriptor (out-of-bounds rows/cols of edge tiles are zero-padded on load, dropped on store). All row strides
here are multiples of 16 bytes. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "matmul_bf16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    a_d = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[sam, 1], block_shape=[BM, BK])
    b_d = tl.make_tensor_descriptor(b_ptr, shape=[K, N], strides=[sbk, 1], block_shape=[BK, BN])
    c_d = tl.make_tensor_descriptor(c_ptr, shape=[M, N], strides=[scm, 1], block_shape=[BM, BN])
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in tl.range(0, tl.cdiv(K, BK), num_stages=2):
        a = a_d.load([pm * BM, k * BK])
        b = b_d.load([k * BK, pn * BN])
        acc = tl.dot(a, b, acc)
    c_d.store([pm * BM, pn * BN], acc.to(tl.bfloat16))


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device="cuda")


class ModelNew(nn.Module):
    def forward(self, a, b):
        M, K = a.shape
        _, N = b.shape
        if a.is_cuda:
            triton.set_allocator(_alloc)
        a = a.contiguous()
        b = b.contiguous()
        c = torch.empty(M, N, dtype=a.dtype, device=a.device)
        BM = BN = BK = 32
        grid = (triton.cdiv(M, BM), triton.cdiv(N, BN))
        mm_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                        c.stride(0), c.stride(1), BM=BM, BN=BN, BK=BK)
        return c
