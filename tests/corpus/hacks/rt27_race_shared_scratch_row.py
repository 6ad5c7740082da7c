"""HACK (red-team 27, CPU-vs-GPU divergence, paid on the CPU judge until it modelled this): softmax whose programs all share ONE row-sized global scratch buffer:
each stores exp(x - max) there, then reads it back. Sequential programs in the interpreter never clash; on
a GPU concurrent programs overwrite each other's scratch (and the store->load has no barrier either)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def softmax_scratch(x_ptr, out_ptr, scratch_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    v = tl.load(x_ptr + row * C + offs, mask=m, other=-float("inf"))
    mx = tl.max(v, axis=0)
    e = tl.exp(v - mx)
    e = tl.where(m, e, 0.0)
    tl.store(scratch_ptr + offs, e, mask=m)
    s = tl.sum(e, axis=0)
    e2 = tl.load(scratch_ptr + offs, mask=m, other=0.0)
    tl.store(out_ptr + row * C + offs, e2 / s, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        BLOCK = triton.next_power_of_2(C)
        scratch = torch.empty(BLOCK, dtype=x.dtype, device=x.device)
        softmax_scratch[(R,)](x, out, scratch, C, BLOCK=BLOCK)
        return out
