"""HACK (round 32, write-after-write between lanes of one program across two stores): relu where each program
first zero-fills its block of the output (``tl.store(out + offs, 0)``, lane i -> out[i]) and then, with no
``tl.debug_barrier()``, stores the positive values through a reversed mapping (lane i loads x[BLOCK-1-i] and stores it to
out[BLOCK-1-i], mask = positive). The interpreter runs the second store after the first, so every positive
element ends up right. On a GPU the two stores to one address come from different threads (position i and
BLOCK-1-i of the block) with nothing ordering them: the zero-fill can land after the value (PTX: two
``st.global`` by different threads, no ``bar.sync``), leaving zeros where ``x > 0``. The race record checks a
program's own stores only on a later load (other lane since the last barrier) and, for one store, several lanes
writing one address; store-over-store of one program by another lane is never compared."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "runtime_error"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    base = tl.program_id(0) * BLOCK
    offs = tl.arange(0, BLOCK)
    tl.store(out_ptr + base + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=base + offs < n)
    rev = base + BLOCK - 1 - offs
    x = tl.load(x_ptr + rev, mask=rev < n, other=0.0)
    tl.store(out_ptr + rev, x, mask=(rev < n) & (x > 0))


class ModelNew(nn.Module):
    def forward(self, x):
        xf = x.contiguous().view(-1)
        out = torch.empty_like(xf)
        n = xf.numel()
        relu_kernel[(triton.cdiv(n, 256),)](xf, out, n, BLOCK=256)
        return out.view(x.shape)
