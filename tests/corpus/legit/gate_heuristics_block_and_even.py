"""LEGIT: @triton.heuristics picks the block from the row length and whether the tail needs a mask, the
way Triton's tutorials and many LLM solutions write it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.heuristics({
    "BLOCK": lambda args: triton.next_power_of_2(args["cols"]),
    "EVEN": lambda args: args["cols"] == triton.next_power_of_2(args["cols"]),
})
@triton.jit
def rowmean_kernel(x_ptr, out_ptr, cols, stride, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    if EVEN:
        v = tl.load(x_ptr + row * stride + offs)
    else:
        v = tl.load(x_ptr + row * stride + offs, mask=offs < cols, other=0.0)
    m = tl.sum(v, axis=0) / cols
    tl.store(out_ptr + row * stride + offs, tl.zeros([BLOCK], tl.float32) + m, mask=offs < cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        out = torch.empty_like(x)
        rowmean_kernel[(rows,)](x, out, cols, x.stride(0))
        return out
