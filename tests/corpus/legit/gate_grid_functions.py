"""LEGIT (gate, grids): a grid function, a grid lambda passed to a helper, a heuristic on the launch args."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs), 0.0))
    else:
        mask = offs < n
        tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


def launch(kernel, grid, *args, **meta):
    kernel[grid](*args, **meta)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()

        def grid(meta):
            return ((n + meta["BLOCK"] - 1) // meta["BLOCK"],)
        relu_kernel[grid](x, out, n, BLOCK=1024)
        launch(relu_kernel, lambda meta: (triton.cdiv(meta["n"], meta["BLOCK"]),), out, out, n, BLOCK=512)
        return out
