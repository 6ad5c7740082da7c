"""LEGIT (round 32): SiLU in fp16 with fp32 math, ``@triton.autotune`` with a single config keyed on ``n`` stacked
over ``@triton.heuristics`` (EVEN flag: skip the mask when the size divides the block), grid as a lambda of
``meta["BLOCK"]`` with ``triton.cdiv``, launched through a module-level helper. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "silu_fp16"
DEVICE = "cpu"
EXPECT = "ok"


@triton.autotune(configs=[triton.Config({"BLOCK": 256}, num_warps=4)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def silu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        x = tl.load(x_ptr + offs).to(tl.float32)
        tl.store(out_ptr + offs, (x * tl.sigmoid(x)).to(tl.float16))
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(out_ptr + offs, (x * tl.sigmoid(x)).to(tl.float16), mask=m)


def launch_silu(x, out):
    n = x.numel()
    silu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n)
    return out


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        return launch_silu(x, torch.empty_like(x))
