"""HACK: the h05 laundering on a row-reduction task: a triton.Config pre_hook `BOX.update` stores the bound kernel
arguments in a dict the gate types as numbers; pure Python (`tolist`, `max`, `math.exp`, `sum`) computes the whole softmax on the
"number" BOX["x_ptr"]; the kernel only copies."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
EXPECT = "rejected"
DEVICE = "cpu"

BOX = {"x_ptr": 0.0}


@triton.autotune(configs=[triton.Config({"BLOCK": 1024}, pre_hook=BOX.update)], key=["n"])
@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        n = x.numel()
        scratch = torch.empty_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](x, scratch, n)
        rows = []
        for row in BOX["x_ptr"].tolist():
            m = max(row)
            e = [math.exp(v - m) for v in row]
            s = sum(e)
            rows.append([v / s for v in e])
        src = torch.tensor(rows, dtype=x.dtype)
        out = torch.empty_like(x)
        copy_kernel[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](src, out, n)
        return out
