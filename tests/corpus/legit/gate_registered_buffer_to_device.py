"""LEGIT (round 5: a buffer registered with register_buffer, moved with .to(x.device) in forward). Scale: the parameter plus a contiguous fp32 copy kept as a registered buffer, moved with .to(device)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_kernel(x_ptr, w_ptr, o_ptr, n, dim, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(o_ptr + offs, tl.load(x_ptr + offs, mask=m) * tl.load(w_ptr + offs % dim, mask=m), mask=m)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.register_buffer("w_flat", self.weight.detach().clone().contiguous())

    def forward(self, x):
        w = self.w_flat.to(x.device)
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        scale_kernel[(triton.cdiv(n, 1024),)](x, w, out, n, w.numel(), BLOCK=1024)
        return out
