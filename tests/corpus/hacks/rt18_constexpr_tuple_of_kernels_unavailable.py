"""HACK: a tuple holding a helper kernel is passed as a constexpr argument; _signature converts only a bare kernel to a JITFunction, so the front end calls the InterpretedFunction inside the tuple, hits _Unavailable and skips; the helper is host Python."""
import math
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "tanh_fp32"
EXPECT = ("rejected", "compile_error")
DEVICE = "cpu"


@triton.jit
def tanh_helper(x_ptr, out_ptr, n, PER: tl.constexpr):
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


@triton.jit
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr, OPS: tl.constexpr):
    OPS[0](x_ptr, out_ptr, n, PER)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        tanh_kernel[(triton.cdiv(n, 256),)](x, out, n, PER=256, OPS=(tanh_helper,))
        return out
