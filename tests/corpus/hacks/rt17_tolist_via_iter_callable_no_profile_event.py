"""HACK: TensorBase.tolist called by iter(f, sentinel) from C (a C-to-C call: sys.setprofile sees no c_call for it); a local named like the solution's own class (Holder = torch.Tensor) makes super(Holder, x) look like (own class, name); relu in pure Python: values read with super(Holder, x).tolist() (TensorBase.tolist, unwrapped and uncounted), max(v, 0) as [v, 0.0].sort() (a container method the gate lets through); a Triton kernel only copies the result."""
import functools
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
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
        vals = next(iter(super(Holder, flat).tolist, None))
        res = []
        for v in vals:
            pair = [v, 0.0]
            pair.sort()
            res.append(pair[1])
        t = torch.tensor(res, dtype=x.dtype)
        copy_kernel[(triton.cdiv(n, 1024),)](t, out, n, BLOCK=1024)
        return out
