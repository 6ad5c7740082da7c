"""LEGIT: the same early_config_prune as a lambda in the prune_configs_by dict."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "needs_gpu"
EXPECT_GPU = "ok"
DEVICE = "cpu"


def prune(configs, named_args, **kwargs):
    n = named_args["n"]
    return [c for c in configs if c.kwargs["BLOCK"] <= max(64, n)]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256})], key=["n"],
                 prune_configs_by={"early_config_prune": lambda configs, nargs, **kw: [c for c in configs if c.kwargs["BLOCK"] <= max(64, nargs["n"])]})
@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        return y
