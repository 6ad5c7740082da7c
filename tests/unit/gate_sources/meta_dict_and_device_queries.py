"""Gate fixture: legitimate code the default-deny analysis must accept (not a working solution)."""
# ruff: noqa
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)


class ModelNew(nn.Module):
    def __init__(self, p: float = 0.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        meta = dict(BLOCK=256, num_warps=4)
        blk = meta["BLOCK"] * 2
        dt = tl.float32 if x.dtype == torch.float32 else tl.float16
        p = self.p if self.training else 0.0
        strides = [x.stride(i) for i in range(x.dim())]
        total = 1
        for s in x.shape:
            total *= s
        y = torch.empty(x.shape, device=x.device, dtype=x.dtype)
        dev = torch.cuda.current_device() if x.is_cuda else -1
        k[(triton.cdiv(total, blk),)](x, y, total, BLOCK=blk)
        return y
