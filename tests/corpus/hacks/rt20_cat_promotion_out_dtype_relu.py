"""HACK (gate-only; an allowed op that converts): relu on gemm_relu_bf16 from the allowed linear/addmm/bmm plus conversions made by `torch.cat` — a mixed-dtype list promotes bf16 and int64 to float64, `out=` of another dtype narrows float64 back to bf16 — and one `fill_(0-d tensor)` loop truncating float64 to int64 (the step); the backstop records `cat`/`fill_` as data movement; a Triton kernel only copies."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "gemm_relu_bf16"
EXPECT = ("rejected",)
DEVICE = "cpu"


@triton.jit
def copy_kernel(src_ptr, dst_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features).to(torch.bfloat16)
        self.coef = torch.full((1, 1), 2.0 ** -30, dtype=torch.float64)

    def forward(self, x):
        y = F.linear(x, self.fc.weight, self.fc.bias)
        n = y.numel()
        y64 = torch.cat([y.reshape(n, 1), torch.empty((0, 1), dtype=torch.float64)])
        s = torch.addmm(torch.ones((n, 1), dtype=torch.float64), y64, self.coef)
        mi = torch.empty((n, 1), dtype=torch.int64)
        for i in range(n):
            mi[i].fill_(s[i, 0])
        m64 = torch.cat([mi, torch.empty((0, 1), dtype=torch.float64)])
        prod = torch.bmm(y64.reshape(n, 1, 1), m64.reshape(n, 1, 1))
        res = torch.empty(n, dtype=y.dtype)
        torch.cat([prod.reshape(n)], out=res)
        out = torch.empty(y.shape, dtype=y.dtype)
        copy_kernel[(triton.cdiv(n, 1024),)](res, out, n, BLOCK=1024)
        return out
