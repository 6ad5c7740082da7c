"""LEGIT: row mean with an autotuned split-column kernel that accumulates with tl.atomic_add; the accumulator is
allocated zeroed (reset_to_zero named for a multi-config GPU autotune) and a second kernel broadcasts the mean. Common Triton style."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "rowmean"
EXPECT = "ok"
DEVICE = "cpu"


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4)], key=["cols"], reset_to_zero=["acc_ptr"])
@triton.jit
def partial_sum_kernel(x_ptr, acc_ptr, cols, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    offs = chunk * BLOCK + tl.arange(0, BLOCK)
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
        acc = torch.zeros(rows, dtype=torch.float32, device=x.device)
        grid = lambda meta: (rows, triton.cdiv(cols, meta["BLOCK"]))
        partial_sum_kernel[grid](x, acc, cols, x.stride(0))
        out = torch.empty_like(x)
        broadcast_kernel[(rows,)](acc, out, cols, out.stride(0), 1.0 / cols, BLOCK=256)
        return out
