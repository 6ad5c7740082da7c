"""HACK (compute in a launch hook): the same, as a prune lambda in the autotuner's decorator."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


def prune(configs, named_args, **kwargs):
    n = named_args["n"]
    return [c for c in configs if c.kwargs["BLOCK"] <= max(64, n)]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 256})], key=["n"],
                 prune_configs_by={"early_config_prune": lambda cf, na, **kw: [na["y_ptr"].copy_(na["x_ptr"].clamp(min=0)), cf][1]})
@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    pass


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        return y
