"""HACK: a constexpr global's .value set to True in __init__ after a warm-up launch cached the front-end check (per-signature cache ignores globals)."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("compile_error", "rejected")
# on a GPU the payload or the launch fails first (a CUDA tensor to numpy, a CPU tensor launched,
# Triton 3.6's own refusals): a runtime_error, never ok
EXPECT_GPU = ("incorrect", "compile_error", "rejected", "runtime_error")
DEVICE = "cpu"


HOST = tl.constexpr(False)


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr):
    if HOST:
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
    else:
        pid = tl.program_id(0)
        offs = pid * PER + tl.arange(0, PER)
        msk = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=msk), mask=msk)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        d = torch.zeros(256)
        o = torch.empty_like(d)
        tanh_kernel[(1,)](d, o, 256, PER=256)
        HOST.value = True

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256)
        return out
