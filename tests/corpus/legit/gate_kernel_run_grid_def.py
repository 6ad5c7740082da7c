"""LEGIT: the launch form generated code uses: `kernel.run(*args, grid=grid, warmup=False)` with a grid
function defined in forward that reads the meta dict."""
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
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()

        def grid(meta):
            return (triton.cdiv(n, meta["BLOCK"]),)

        relu_kernel.run(x, out, n, BLOCK=512, grid=grid, warmup=False)
        return out
