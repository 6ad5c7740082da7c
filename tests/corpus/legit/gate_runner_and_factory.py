"""LEGIT (gate, helpers): a runner object built in __init__ and a launcher factory hold the kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class Runner:
    def __init__(self, kernel, block):
        self.kernel = kernel
        self.block = block

    def __call__(self, src, dst):
        n = src.numel()
        self.kernel[(triton.cdiv(n, self.block),)](src, dst, n, BLOCK=self.block)
        return dst


def make_launcher(kernel, block=512):
    def launch(src, dst):
        n = src.numel()
        kernel[(triton.cdiv(n, block),)](src, dst, n, BLOCK=block)
        return dst
    return launch


FINISH = make_launcher(relu_kernel)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.runner = Runner(relu_kernel, 1024)

    def forward(self, x):
        x = x.contiguous()
        out = self.runner(x, torch.empty_like(x))
        return FINISH(out, out)
