"""LEGIT (gate, kernel by call): triton.jit(fn) called on a plain module function instead of the decorator; a gather along dim 1."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gather_dim1_fp32"
EXPECT = "ok"
DEVICE = "cpu"

def _gather_py(x_ptr, idx_ptr, o_ptr, K, sxr, sir, BLOCK: tl.constexpr):
    r = tl.program_id(0)
    k = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = k < K
    j = tl.load(idx_ptr + r * sir + k, mask=m, other=0)
    v = tl.load(x_ptr + r * sxr + j, mask=m, other=0.0)
    tl.store(o_ptr + r * K + k, v, mask=m)

_gather = triton.jit(_gather_py)

class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, idx):
        R, K = idx.shape
        out = torch.empty(R, K, dtype=x.dtype, device=x.device)
        _gather[(R, triton.cdiv(K, 32))](x, idx, out, K, x.stride(0), idx.stride(0), BLOCK=32)
        return out
