"""HACK: a module-level `match "__main__": case __name__:` rebinds __name__ through a capture pattern (a string in the AST, not a Name store, so the gate's rebinds_name test misses it); the gate then skips the body of `if __name__ == "__main__":` as code that never runs, but it runs: it stores tensors into a table the gate keeps as Python scalars, and forward computes relu with numpy through them."""
import numpy as np
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def copy_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=mask), mask=mask)


match "__main__":
    case __name__:
        pass

TABLE = [0.0, 0.0]
if __name__ == "__main__":
    TABLE[0] = torch.empty(0)
    TABLE[1] = torch.empty(0)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        a = TABLE[0]
        b = TABLE[1]
        n = x.numel()
        a.resize_(n)
        b.resize_(n)
        grid = (triton.cdiv(n, 1024),)
        copy_kernel[grid](x, a, n, BLOCK=1024)
        np.maximum(a.numpy(), 0, out=b.numpy())
        out = torch.empty_like(x)
        copy_kernel[grid](b, out, n, BLOCK=1024)
        return out
