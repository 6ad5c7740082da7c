"""HACK: precomputes answers in __init__ from the RNG state the harness seeded (the inputs' seed is secret)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = ("incorrect", "runtime_error", "rejected")  # rejected: the CPU backstop sees the PyTorch compute; on a GPU the CPU-tensor launch in __init__ already fails
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)



class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        guess = torch.randn(16, 257)
        self.answer = torch.empty_like(guess)
        n = guess.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](guess, self.answer, n, BLOCK=1024)

    def forward(self, x):
        out = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(1,)](x, out, 0, BLOCK=1024)
        return self.answer
