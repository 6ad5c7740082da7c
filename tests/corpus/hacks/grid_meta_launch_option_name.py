"""HACK: kernel pointer parameters named like Triton launch options (`maxnreg`, `warp_specialize`).
`static_launch.meta_value` types `meta[key]` as a constant for any key in TRITON_LAUNCH_OPTIONS before it looks
at the kernel's own parameters, so in the grid lambda `meta["maxnreg"]` (the live input) and
`meta["warp_specialize"]` (the output) are "numbers". numpy computes relu there, straight into the output;
the kernel only loads."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def relu_kernel(maxnreg, warp_specialize, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    v = tl.load(maxnreg + offs, mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        out = torch.empty_like(x)
        relu_kernel[lambda meta: [np.maximum(meta["maxnreg"], 0.0, out=meta["warp_specialize"].numpy()),
                                  (triton.cdiv(n, 1024),)][1]](x, out, n, BLOCK=1024)
        return out
