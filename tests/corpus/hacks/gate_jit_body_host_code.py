"""HACK (gate, kernel body): under the interpreter a kernel body calls numpy on module state."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import numpy as np

TASK = "relu"
EXPECT = 'rejected'
DEVICE = "cpu"


STATE = {}


@triton.jit
def host_kernel(out_ptr, n, BLOCK: tl.constexpr):
    np.maximum(STATE["x"], 0.0, out=STATE["out"])


class ModelNew(nn.Module):
    def forward(self, x):
        out = torch.empty_like(x)
        STATE["x"], STATE["out"] = np.asarray(x), np.asarray(out)
        host_kernel[(1,)](out, x.numel(), BLOCK=16)
        return out
