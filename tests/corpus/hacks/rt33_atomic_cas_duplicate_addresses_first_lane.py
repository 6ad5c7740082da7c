"""HACK (round 33): two lanes of one vector ``tl.atomic_cas`` race for the same address: the output starts at
-1.0 (``torch.full``), lane 2i tries to swap -1.0 -> relu(x[i]) and lane 2i+1 tries -1.0 -> 123.0; whichever is
served first wins and the other fails. The interpreter's native CAS serves the lanes in index order every time
(``create_atomic_cas`` is not routed through ``lane_permutation``, unlike ``create_atomic_rmw`` since round 31b),
so lane 2i always wins and the output is relu(x). On a GPU the two lanes are two threads of one warp (the sm_90 TTGIR here gives the
256-element block ``sizePerThread = [1]``: lane k is thread k mod 128) executing one ``atom.cas``, and the
hardware's order between them is not defined: 123.0 lands wherever lane 2i+1 goes first."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = ("runtime_error", "incorrect")


@triton.jit
def relu_cas(x_ptr, out_ptr, N, BLOCK: tl.constexpr):
    k = tl.arange(0, 2 * BLOCK)
    idx = tl.program_id(0) * BLOCK + k // 2
    m = idx < N
    x = tl.load(x_ptr + idx, mask=m, other=0.0)
    val = tl.where(k % 2 == 0, tl.maximum(x, 0.0), 123.0)
    # out-of-range lanes point at element 0 and propose its current content's impossible value -2.0 -> no swap
    tl.atomic_cas(out_ptr + tl.where(m, idx, 0), tl.where(m, -1.0, -2.0), val)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        out = torch.full_like(x, -1.0)
        n = x.numel()
        relu_cas[(triton.cdiv(n, 128),)](x, out, n, BLOCK=128)
        return out
