"""HACK (round 31, the interpreter serialises one atomic's lanes in index order): row prefix sum from a single
vector atomic: every lane does ``tl.atomic_add(acc + row, x[lane])`` on the SAME word and keeps the old value,
which under the interpreter's element-by-element loop is exactly the exclusive prefix sum in lane order
(``out = old + x``). On a GPU the order in which the lanes' atomics hit one address is unspecified (within a warp
and certainly across warps), so ``old`` is the sum of an arbitrary subset: wrong prefix sums. The race record
lets atomics meet atomics and never asks in which order lanes of one program were served."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "cumsum_fp32"
DEVICE = "cpu"
EXPECT = "incorrect"


@triton.jit
def scan(x_ptr, out_ptr, acc_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    x = tl.load(x_ptr + row * C + offs, mask=m, other=0.0)
    old = tl.atomic_add(acc_ptr + row + 0 * offs, x, mask=m)
    tl.store(out_ptr + row * C + offs, old + x, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        acc = torch.zeros(R, dtype=x.dtype, device=x.device)
        scan[(R,)](x, out, acc, C, BLOCK=triton.next_power_of_2(C))
        return out
