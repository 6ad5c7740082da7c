"""LEGIT: launch settings as a class nested in ModelNew's body, read through self and through the class.
Observed (round 12): rejected kernel_args (self.Cfg.BLOCK is UNKNOWN) -- false rejection."""
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
    class Cfg:
        BLOCK = 1024
        WARPS = 4

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, self.Cfg.BLOCK),)](x, out, n, BLOCK=ModelNew.Cfg.BLOCK, num_warps=self.Cfg.WARPS)
        return out
