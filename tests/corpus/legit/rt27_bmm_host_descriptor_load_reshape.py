"""LEGIT (red-team 27, refused before: an attribute of what `desc.load(...)` returned was judged as one of the argument): batched matmul through host-side TensorDescriptors (Triton 3.9's replacement for block pointers,
as in Triton's own matmul tutorials): 3D grid, 3D descriptors with block (1, BM, BK), out-of-range tiles
zero-padded by the descriptor, ieee dot, store through a descriptor."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

TASK = "bmm_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def bmm_desc(a_desc, b_desc, c_desc, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    bid = tl.program_id(0)
    om = tl.program_id(1) * BM
    on = tl.program_id(2) * BN
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        a = a_desc.load([bid, om, k]).reshape(BM, BK)
        b = b_desc.load([bid, k, on]).reshape(BK, BN)
        acc = tl.dot(a, b, acc, input_precision="ieee")
    c_desc.store([bid, om, on], acc.reshape(1, BM, BN))


class ModelNew(nn.Module):
    def forward(self, a, b):
        B, M, K = a.shape
        N = b.shape[2]
        c = torch.empty((B, M, N), dtype=a.dtype, device=a.device)
        BM, BN, BK = 16, 16, 16
        ad = TensorDescriptor.from_tensor(a, [1, BM, BK])
        bd = TensorDescriptor.from_tensor(b, [1, BK, BN])
        cd = TensorDescriptor.from_tensor(c, [1, BM, BN])
        bmm_desc[(B, triton.cdiv(M, BM), triton.cdiv(N, BN))](ad, bd, cd, K, BM=BM, BN=BN, BK=BK)
        return c
