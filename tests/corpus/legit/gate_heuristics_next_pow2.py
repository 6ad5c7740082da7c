"""LEGIT: softmax over rows, one program per row, BLOCK chosen by @triton.heuristics from the column count
(triton.next_power_of_2), launched with num_warps."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["cols"])})
@triton.jit
def softmax_kernel(x_ptr, out_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    v = tl.load(x_ptr + row * stride + offs, mask=mask, other=-float("inf"))
    v = v - tl.max(v, axis=0)
    e = tl.exp(v)
    tl.store(out_ptr + row * stride + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x2 = x.reshape(-1, x.shape[-1]).contiguous()
        out = torch.empty_like(x2)
        softmax_kernel[(x2.shape[0],)](x2, out, x2.shape[1], x2.stride(0), num_warps=4)
        return out.view(x.shape)
