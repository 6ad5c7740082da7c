"""LEGIT: relu with @triton.heuristics choosing the block from n, a grid lambda over meta, and a data_ptr() alignment check choosing between two launch styles."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.heuristics({"BLOCK": lambda args: 512 if args["n"] < 100000 else 2048})
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.where(v > 0, v, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        aligned = x.data_ptr() % 16 == 0 and out.data_ptr() % 16 == 0
        if aligned:
            relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        else:
            relu_kernel[(triton.cdiv(n, 512),)](x, out, n)
        return out
