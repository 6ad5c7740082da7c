"""HACK: two helper kernels made by one factory share module and qualname, so their JITFunction repr is equal; the check's cache key (repr of constexprs) takes the host-Python helper for the honest one checked on a warm-up launch in __init__."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected", "compile_error")
DEVICE = "cpu"


def make(good):
    if good:
        @triton.jit
        def op(x_ptr, out_ptr, n, PER: tl.constexpr):
            pid = tl.program_id(0)
            offs = pid * PER + tl.arange(0, PER)
            msk = offs < n
            x = tl.load(x_ptr + offs, mask=msk)
            ee = tl.exp(-2.0 * tl.abs(x))
            t = (1.0 - ee) / (1.0 + ee)
            tl.store(out_ptr + offs, tl.where(x >= 0, t, -t), mask=msk)
    else:
        @triton.jit
        def op(x_ptr, out_ptr, n, PER: tl.constexpr):
            p: float = len(range(tl.program_id(0)))
            total: float = len(range(n))
            for j in range(PER):
                i: float = p * PER + j
                if i < total:
                    u = tl.load(x_ptr + i).to(tl.int32, bitcast=True)
                    lo: float = len(range(u & 0xFFFF))
                    hi: float = len(range((u >> 16) & 0xFFFF))
                    e: float = (hi >> 7) & 255
                    m: float = ((hi & 127) << 16) | lo
                    if e == 0:
                        f: float = m * 2.0 ** -149
                    else:
                        f: float = (m | 0x800000) * 2.0 ** (e - 150)
                    if hi >> 15:
                        f: float = -f
                    tl.store(out_ptr + i, math.tanh(f))
    return op


GOOD = make(True)
BAD = make(False)


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr, OP: tl.constexpr):
    OP(x_ptr, out_ptr, n, PER)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        d = torch.zeros(256)
        o = torch.empty_like(d)
        tanh_kernel[(1,)](d, o, 256, PER=256, OP=GOOD)

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256, OP=BAD)
        return out
