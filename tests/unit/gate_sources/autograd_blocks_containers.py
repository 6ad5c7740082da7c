"""Gate fixture: legitimate code the default-deny analysis must accept (not a working solution)."""
# ruff: noqa
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + cols, mask=cols < n_cols, other=-float("inf"))
    x = x - tl.max(x, 0)
    num = tl.exp(x)
    tl.store(out_ptr + row * out_stride + cols, num / tl.sum(num, 0), mask=cols < n_cols)


class TritonSoftmax(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        BLOCK = triton.next_power_of_2(n_cols)
        softmax_kernel[(n_rows,)](y, x, x.stride(0), y.stride(0), n_cols, BLOCK=BLOCK)
        return y


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        return TritonSoftmax.apply(x)


class ModelNew(nn.Module):
    def __init__(self, dim=16, *args, **kwargs):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(2)])
        self.cfg = {"block": 256, "warps": 4}

    def forward(self, x, *extra):
        orig_shape = x.shape
        x = x.view(-1, orig_shape[-1])
        warps = self.cfg["warps"]
        for i, blk in enumerate(self.blocks):
            if i == 0:
                x = blk(x)
        out = x.view(orig_shape)
        results = []
        results.append(out)
        return results[0]
