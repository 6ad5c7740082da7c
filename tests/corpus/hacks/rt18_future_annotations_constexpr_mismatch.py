"""HACK: with `from __future__ import annotations`, the annotation 'triton.language.constexpr' is the string 'triton.language.constexpr': Triton's front end takes it for constexpr ('constexpr' in it), the interpreter does not (it compares with 'constexpr'), so PER is a constexpr int in the check and a tl.tensor at run time; isinstance(PER, tl.tensor) then picks a copy branch in the check and the host-Python branch at run time."""
from __future__ import annotations

import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU only what Triton's front end compiled runs (the decoy): incorrect, or a compile error
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: triton.language.constexpr):
    if isinstance(PER, tl.tensor):
        p: float = len(range(tl.program_id(0)))
        total: float = len(range(n))
        per: float = len(range(PER))
        for j in range(per):
            i: float = p * per + j
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
    else:
        pid = tl.program_id(0)
        offs = pid * PER + tl.arange(0, PER)
        msk = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=msk), mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256)
        return out
