"""LEGIT: inheritance between own nn.Module classes (a _RowKernelModule base with a launch helper), 3-D input flattened with reshape, causal mask in-kernel."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale_mask_softmax_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def causal_softmax_kernel(x_ptr, y_ptr, seq, scale, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    q = row % seq
    offs = tl.arange(0, BLOCK)
    valid = (offs < seq) & (offs <= q)
    x = tl.load(x_ptr + row * seq + offs, mask=valid, other=float("-inf")) * scale
    x = x - tl.max(x, axis=0)
    e = tl.where(valid, tl.exp(x), 0.0)
    tl.store(y_ptr + row * seq + offs, e / tl.sum(e, axis=0), mask=offs < seq)


class _RowKernelModule(nn.Module):
    num_warps: int = 4

    def _rows(self, x: torch.Tensor) -> tuple[torch.Tensor, int, int]:
        n = x.shape[-1]
        x2 = x.reshape(-1, n)
        return x2, x2.shape[0], n

    def _launch(self, kernel, x: torch.Tensor, *scalars):
        x2, rows, n = self._rows(x)
        y = torch.empty_like(x2)
        kernel[(rows,)](x2, y, n, *scalars, BLOCK=triton.next_power_of_2(n), num_warps=self.num_warps)
        return y.reshape(x.shape)


class ModelNew(_RowKernelModule):
    def __init__(self):
        super().__init__()
        self.scale = 0.125

    def forward(self, x):
        return self._launch(causal_softmax_kernel, x.contiguous(), self.scale)
