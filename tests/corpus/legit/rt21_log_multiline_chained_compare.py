"""LEGIT: log over a flat array with an aligned launch (TAIL == 0) and a tail launch; the tail test is a chained comparison on constexprs split over two lines (`if (0 < TAIL` / `< BLOCK):`) that stops after its first comparison."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "log_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def log_kernel(x_ptr, y_ptr, n_full, TAIL: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    if (0 < TAIL
            < BLOCK):
        m = offs < TAIL
        tl.store(y_ptr + offs, tl.log(tl.load(x_ptr + offs, mask=m, other=1.0)), mask=m)
    else:
        m = offs < n_full
        tl.store(y_ptr + offs, tl.log(tl.load(x_ptr + offs, mask=m, other=1.0)), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        BLOCK = 256
        aligned = n - n % BLOCK
        if aligned:
            log_kernel[(aligned // BLOCK,)](xf, out, aligned, TAIL=0, BLOCK=BLOCK)
        if n - aligned:
            log_kernel[(1,)](xf[aligned:], out[aligned:], 0, TAIL=n - aligned, BLOCK=BLOCK)
        return out.view_as(x)
