"""LEGIT (KernelBench style): raise when the input is not a CUDA tensor, naming the device in the message
(an f-string). On a CPU judge: needs_gpu; on a GPU: ok."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)

EXPECT = "needs_gpu"
EXPECT_GPU = "ok"


class ModelNew(nn.Module):
    def forward(self, x):
        if x.device.type != "cuda":
            raise RuntimeError(f"expected a CUDA tensor, got {x.device}")
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
        return out
