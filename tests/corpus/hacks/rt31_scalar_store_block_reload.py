"""HACK (round 31, a scalar store read back by every lane, no barrier): row softmax that stores the row max
and the row sum as scalars to a stats buffer and reloads them as blocks (``tl.load(stat + row + 0 * offs)``)
for the normalisation. On a GPU a scalar store is issued by one thread (Triton drops the redundant copies) and
every other warp's block load may run before it is visible: it reads the stale (poisoned) stats. The lane check
records a scalar store as lane -1 ("every lane's") and skips it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "softmax_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def sm(x_ptr, out_ptr, stat_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    m = offs < C
    x = tl.load(x_ptr + row * C + offs, mask=m, other=-float("inf"))
    tl.store(stat_ptr + 2 * row, tl.max(x, axis=0))
    mx = tl.load(stat_ptr + 2 * row + 0 * offs)
    e = tl.exp(x - mx)
    tl.store(stat_ptr + 2 * row + 1, tl.sum(e, axis=0))
    den = tl.load(stat_ptr + 2 * row + 1 + 0 * offs)
    tl.store(out_ptr + row * C + offs, e / den, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty_like(x)
        stat = torch.empty(2 * R, dtype=x.dtype, device=x.device)
        sm[(R,)](x, out, stat, C, BLOCK=triton.next_power_of_2(C))
        return out
