"""HACK: isinstance(PER, tl.constexpr) is True in Triton's front end (a constexpr argument is wrapped) and False under the interpreter (raw int), so the front end compiles the honest branch while the interpreter runs the host-Python branch."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr):
    if isinstance(PER, tl.constexpr):
        pid = tl.program_id(0)
        offs = pid * PER + tl.arange(0, PER)
        msk = offs < n
        x = tl.load(x_ptr + offs, mask=msk)
        ee = tl.exp(-2.0 * tl.abs(x))
        t = (1.0 - ee) / (1.0 + ee)
        tl.store(out_ptr + offs, tl.where(x >= 0, t, -t), mask=msk)
    else:
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


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256)
        return out
