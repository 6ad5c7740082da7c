"""LEGIT (round 32): row max of a bf16 matrix via ``tl.sort`` (descending) of the padded row, then the first
element picked with a masked ``tl.sum`` (one program per row, whole row in one block). Wasteful, honest."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "amax_rows_bf16"
DEVICE = "cpu"
EXPECT = ("ok", "needs_gpu")  # tl.sort of a padded row is slow under the interpreter: may pass the CPU time limit


@triton.jit
def amax_sort_kernel(x_ptr, out_ptr, C, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    v = tl.load(x_ptr + row * C + offs, mask=offs < C, other=-float("inf")).to(tl.float32)
    s = tl.sort(v, dim=0, descending=True)
    first = tl.sum(tl.where(offs == 0, s, 0.0), axis=0)
    tl.store(out_ptr + row, first.to(tl.bfloat16))


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        out = torch.empty(R, dtype=x.dtype, device=x.device)
        amax_sort_kernel[(R,)](x, out, C, BLOCK=triton.next_power_of_2(C))
        return out
