"""LEGIT: softmax whose BLOCK and num_warps come from @triton.heuristics lambdas (next_power_of_2 of n_cols), launched with only runtime args."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.heuristics({
    "BLOCK": lambda args: triton.next_power_of_2(args["n_cols"]),
    "num_warps": lambda args: 4 if args["n_cols"] <= 2048 else 8,
})
@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_stride, out_stride, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(in_ptr + row * in_stride + offs, mask=offs < n_cols, other=-float("inf"))
    z = x - tl.max(x, axis=0)
    num = tl.exp(z)
    tl.store(out_ptr + row * out_stride + offs, num / tl.sum(num, axis=0), mask=offs < n_cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](out, x2, x2.stride(0), out.stride(0), x2.shape[1])
        return out.view_as(x)
