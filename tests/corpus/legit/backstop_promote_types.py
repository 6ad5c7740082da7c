"""LEGIT (round 5: torch.promote_types in forward (a dtype query the run-time backstop must allow)). Scale that loads weight in its own dtype and multiplies in fp32 inside the kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_kernel(x_ptr, w_ptr, out_ptr, n_cols, total, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    col = offs % n_cols
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + col, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + offs, (x * w).to(out_ptr.dtype.element_ty), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        x = x.contiguous()
        out_dtype = torch.promote_types(x.dtype, self.weight.dtype)
        out = torch.empty(x.shape, dtype=out_dtype, device=x.device)
        total = x.numel()
        n_cols = x.shape[-1]
        scale_kernel[(triton.cdiv(total, 2048),)](x, self.weight, out, n_cols, total, BLOCK=2048)
        return out
