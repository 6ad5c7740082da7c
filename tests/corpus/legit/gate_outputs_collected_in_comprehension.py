"""LEGIT: outputs allocated and kernels launched over a list of inputs with comprehensions and a helper
(`[launch(t, o) for t, o in zip(ins, outs)]`), two launches per forward."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


@triton.jit
def add_inplace_kernel(a_ptr, b_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(a_ptr + offs, tl.load(a_ptr + offs, mask=mask) + tl.load(b_ptr + offs, mask=mask), mask=mask)


def launch_copy(t, o):
    n = t.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](t, o, n, BLOCK=1024)
    return o


class ModelNew(nn.Module):
    def forward(self, x, y):
        ins = [x.contiguous(), y.contiguous()]
        outs = [torch.empty_like(t) for t in ins]
        [launch_copy(t, o) for t, o in zip(ins, outs)]
        n = outs[0].numel()
        add_inplace_kernel[(triton.cdiv(n, 1024),)](outs[0], outs[1], n, BLOCK=1024)
        return outs[0]
