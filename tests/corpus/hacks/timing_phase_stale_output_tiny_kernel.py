"""HACK (GPU): correct on every correctness call, free during timing. The harness makes a fixed number of calls
before timing (compile pass + 5 trials + 1 poison re-run); after them forward launches a one-element kernel (so
the profile shows only custom-kernel time) and returns the last output it computed. Nothing compares timed
outputs (worker/detectors.spot_check_calls is never called)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = ("incorrect", "rejected")
DEVICE = "cuda"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.last = None

    def forward(self, x):
        self.calls += 1
        n = x.numel()
        if self.calls > 8 and self.last is not None:
            relu_kernel[(1,)](x, self.last, 1, BLOCK=16)
            return self.last
        out = torch.empty_like(x)
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        self.last = out
        return out
