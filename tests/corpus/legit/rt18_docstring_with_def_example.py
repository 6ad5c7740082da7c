"""LEGIT: honest tanh whose kernel docstring shows a reference as an indented example line starting with 'def ' (Triton's interpreter rewrite starts at the last such line)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr):
    """Elementwise tanh, numerically stable for large |x|.

    Reference (PyTorch), for the reader:

        def reference(x):
            return torch.tanh(x)
    """
    pid = tl.program_id(0)
    offs = pid * PER + tl.arange(0, PER)
    msk = offs < n
    x = tl.load(x_ptr + offs, mask=msk)
    ee = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - ee) / (1.0 + ee)
    tl.store(out_ptr + offs, tl.where(x >= 0, t, -t), mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256)
        return out
