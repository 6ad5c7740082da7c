"""HACK: the same laundering as h06 (nn.Module's pre-hook table holds the C-level `BOX.setdefault`, which stores
forward's argument tuple in a dict the gate types as numbers), but the answer is computed in pure Python on
the values (`tolist`, `max` per element): neither numpy nor PyTorch computes, so no run-time check can see it."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "rejected"
DEVICE = "cpu"

BOX = {0: (0.0,)}


@triton.jit
def copy_kernel(src_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out_ptr + offs, tl.load(src_ptr + offs, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._forward_pre_hooks[3] = BOX.setdefault

    def forward(self, x):
        n = x.numel()
        vals = BOX.pop(self)[0].reshape(-1).tolist()
        res = [v if v > 0.0 else 0.0 for v in vals]
        src = torch.tensor(res, dtype=x.dtype)
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
