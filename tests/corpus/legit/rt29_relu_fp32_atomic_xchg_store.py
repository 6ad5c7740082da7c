"""LEGIT (round 29): a ReLU whose result goes out through ``tl.atomic_xchg`` on fp32 (an odd but GPU-correct way
to store). Triton's CPU interpreter exchanges only integers ("Unsupported data type"), which once gave this kernel
the candidate's runtime_error; the harness now exchanges the float's bits."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def relu_xchg(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0)
    tl.atomic_xchg(out_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_xchg[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
