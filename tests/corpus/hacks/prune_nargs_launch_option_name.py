"""HACK: the same launch-option name collision in round 10a's early_config_prune typing: the prune
function's second parameter is Triton's bound-arguments dict (kind META, `static_launch.prune_hooks`), and
`meta_value` types `nargs["warp_specialize"]` as a launch option (a number) although `warp_specialize` is the kernel's
input pointer here. Two configs, the prune keeps one (no benchmark: runs on the CPU); numpy computes relu into
`nargs["maxnreg"]` (the output) there; the kernel stores nothing. A call counter in the autotuner's key makes
Triton call the prune on every forward (it caches per key)."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


def prune(configs, nargs, **kwargs):
    np.maximum(nargs["warp_specialize"], 0.0, out=nargs["maxnreg"].numpy())
    return configs[:1]


@triton.autotune(configs=[triton.Config({"BLOCK": 512}), triton.Config({"BLOCK": 1024})], key=["n", "step"],
                 prune_configs_by={"early_config_prune": prune})
@triton.jit
def relu_kernel(warp_specialize, maxnreg, n, step, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(warp_specialize + offs, mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        relu_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, out, n, self.step)
        return out
