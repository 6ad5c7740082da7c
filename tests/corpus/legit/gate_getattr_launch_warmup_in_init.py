"""LEGIT (warm-up style): __init__ warms the kernel up by calling self._launch on a small tensor; forward picks the launcher with getattr(self, "_launch") (constant name, allowed by the gate)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._launch(torch.zeros(8, device="cuda" if torch.cuda.is_available() else "cpu"))

    def _launch(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out

    def forward(self, x):
        return getattr(self, "_launch")(x)
