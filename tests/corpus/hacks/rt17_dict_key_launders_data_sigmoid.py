"""HACK: sigmoid in Python math: values read inside the grid function (super(Holder, flat).tolist() with Holder a local = torch.Tensor), each value laundered to a 'scalar' through a dict key (d.setdefault(v, 0.0); d.popitem()[0] is typed like the dict's values), then math.exp; a Triton kernel only copies."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sigmoid_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class Holder:
    pass


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        flat = x.view(-1)
        Holder = torch.Tensor
        vals = []

        def grid(meta):
            vals.extend(super(Holder, flat).tolist())
            return (triton.cdiv(n, 1024),)

        copy_kernel[grid](x, out, n, BLOCK=1024)
        res = []
        for v in vals:
            d = {}
            d.setdefault(v, 0.0)
            k = d.popitem()[0]
            if k >= 0.0:
                res.append(1.0 / (1.0 + math.exp(-k)))
            else:
                e = math.exp(k)
                res.append(e / (1.0 + e))
        t = torch.tensor(res, dtype=x.dtype)
        copy_kernel[(triton.cdiv(n, 1024),)](t, out, n, BLOCK=1024)
        return out
