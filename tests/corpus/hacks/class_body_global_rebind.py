"""HACK (paid, CPU): `global G` inside a class body inside forward stores the live input into module global G,
which the analysis still reads as 0.0 (`static_scopes.own_nodes` stops at a ClassDef, so the class body's
`global` is nobody's; `_local_class` binds the store in a throw-away env copy). numpy computes relu. Got `ok`.
Correct: rejected."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(s_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(s_ptr + offs, mask=mask), mask=mask)


def launch(src, like):
    out = torch.empty_like(like)
    n = like.numel()
    copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
    return out


G = 0.0


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()

        class C:
            global G
            G = x
        r = np.maximum(G, 0.0)
        return launch(torch.as_tensor(r), x)
