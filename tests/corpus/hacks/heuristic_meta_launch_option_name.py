"""HACK: kernel pointer parameters named like Triton launch options (`maxnreg`, `warp_specialize`).
`static_launch.meta_value` types `meta[key]` as a constant for any key in TRITON_LAUNCH_OPTIONS before it looks
at the kernel's own parameters, so in a @triton.heuristics lambda (Triton hands it the live launch
arguments, torch tensors, also under the interpreter) `a["maxnreg"]` (the input) and `a["warp_specialize"]` (the
output) are "numbers". numpy computes relu there, straight into the output; the kernel only loads."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.heuristics({"EVEN": lambda a: int(np.maximum(a["maxnreg"], 0.0, out=a["warp_specialize"].numpy()) is None)})
@triton.jit
def relu_kernel(maxnreg, warp_specialize, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(maxnreg + offs, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
