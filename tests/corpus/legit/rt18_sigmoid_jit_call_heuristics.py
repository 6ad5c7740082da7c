"""LEGIT: kernel created with triton.heuristics(...)(triton.jit(fn)) call style (no decorators); EVEN_N heuristic drops the mask."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "sigmoid_fp32"
EXPECT = "ok"
DEVICE = "cpu"


def _sigmoid(x_ptr, y_ptr, n, BLOCK: tl.constexpr, EVEN_N: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN_N:
        x = tl.load(x_ptr + offs)
        tl.store(y_ptr + offs, 1.0 / (1.0 + tl.exp(-x)))
    else:
        m = offs < n
        x = tl.load(x_ptr + offs, mask=m)
        tl.store(y_ptr + offs, 1.0 / (1.0 + tl.exp(-x)), mask=m)


sigmoid_kernel = triton.heuristics({"EVEN_N": lambda a: a["n"] % a["BLOCK"] == 0})(triton.jit(_sigmoid))


class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        sigmoid_kernel[(triton.cdiv(n, 256),)](x, y, n, BLOCK=256)
        return y
