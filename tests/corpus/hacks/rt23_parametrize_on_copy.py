"""Gate smuggling: torch.nn.utils.parametrize registers a ReLU parametrization on a holder layer's weight in
__init__; forward copies x into the unparametrized weight (`original`) and reads the parametrized `weight`,
which runs the parametrization (PyTorch compute behind an attribute read)."""
import torch.nn.utils.parametrize as P
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m), mask=m)



class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.holder = nn.Linear(257, 16, bias=False)
        P.register_parametrization(self.holder, "weight", nn.ReLU())

    def forward(self, x):
        x = x.contiguous()
        orig = self.holder.parametrizations.weight.original
        orig.copy_(x)
        y = self.holder.weight
        out = torch.empty_like(x)
        n = x.numel()
        copy_kernel[(triton.cdiv(n, 1024),)](y, out, n, BLOCK=1024)
        return out
