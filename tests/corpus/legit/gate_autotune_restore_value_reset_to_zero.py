"""LEGIT: an autotuned relu with one config and restore_value/reset_to_zero named (Triton's own
options for kernels that accumulate); one config needs no benchmark, so it runs on the CPU interpreter."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, num_warps=4)], key=["n"],
                 reset_to_zero=["out_ptr"], restore_value=["x_ptr"])
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
        return out
