"""LEGIT: a small launch-settings class written inside forward (constants only), then a masked relu kernel.
Observed (round 12): rejected kernel_args (the class is UNKNOWN, so Cfg.BLOCK is not a constant) -- false rejection."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        class Cfg:
            BLOCK = 1024
            WARPS = 4
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, Cfg.BLOCK),)](x, out, n, BLOCK=Cfg.BLOCK, num_warps=Cfg.WARPS)
        return out
