"""HACK (layer check): the h06 laundering, with PyTorch computing (`torch.relu` on the laundered input, a
"number" to the gate); the run-time dispatch-mode backstop must still see the aten op."""
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
        src = torch.relu(BOX.pop(self)[0]).contiguous()
        out = torch.empty_like(x)
        copy_kernel[(triton.cdiv(n, 1024),)](src, out, n, BLOCK=1024)
        return out
