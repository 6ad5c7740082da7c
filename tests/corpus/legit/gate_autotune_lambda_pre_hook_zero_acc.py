"""LEGIT: single-config autotune whose Config pre_hook is a lambda zeroing the atomic accumulator
(`lambda nargs: nargs["acc_ptr"].zero_()`), then a second kernel broadcasts the row mean."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, pre_hook=lambda nargs: nargs["acc_ptr"].zero_())],
                 key=["cols"])
@triton.jit
def partial_sum_kernel(x_ptr, acc_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * stride + offs, mask=offs < cols, other=0.0)
    tl.atomic_add(acc_ptr + row, tl.sum(v, axis=0))


@triton.jit
def broadcast_kernel(acc_ptr, out_ptr, cols, stride, inv, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    m = tl.load(acc_ptr + row) * inv
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        tl.store(out_ptr + row * stride + offs, tl.zeros([BLOCK], tl.float32) + m, mask=offs < cols)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        rows, cols = x.shape
        acc = torch.empty(rows, dtype=torch.float32, device=x.device)
        partial_sum_kernel[lambda meta: (rows, triton.cdiv(cols, meta["BLOCK"]))](x, acc, cols, x.stride(0))
        out = torch.empty_like(x)
        broadcast_kernel[(rows,)](acc, out, cols, out.stride(0), 1.0 / cols, BLOCK=256)
        return out
