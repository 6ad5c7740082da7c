"""LEGIT: an autotuner with both early_config_prune (drop blocks larger than the problem) and a perf_model
with top_k (Triton's matmul style: a cost estimate from the named sizes and the config's meta-parameters).
Multi-config autotune: needs_gpu on the CPU interpreter, ok on a GPU."""
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
    kept = [c for c in configs if c.kwargs["BLOCK"] <= max(256, triton.next_power_of_2(n))]
    return kept or configs[:1]


def estimate(n, BLOCK, **kwargs):
    return triton.cdiv(n, BLOCK) * (1.0 + 64.0 / BLOCK)


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((256, 2), (512, 4), (1024, 4),
                                                                                (2048, 8))],
                 key=["n"], prune_configs_by={"early_config_prune": prune, "perf_model": estimate, "top_k": 2})
@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, y, n)
        return y
