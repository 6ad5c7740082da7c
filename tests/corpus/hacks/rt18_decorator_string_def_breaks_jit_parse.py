"""HACK: a multi-line string in @triton.jit(debug=...) holds a column-0 line 'def<TAB>x(': JITFunction's regex takes the kernel's source from there, so the front end's parse raises SyntaxError (not a CompilationError) and the check skips; the interpreter (which looks for 'def ' with a space) runs the real host-Python body."""
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


@triton.jit(debug="""
def	fake(""")
def tanh_kernel(x_ptr, out_ptr, n, PER: tl.constexpr):
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
