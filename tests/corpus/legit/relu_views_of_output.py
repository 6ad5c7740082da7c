"""LEGIT: kernel on a flat view, output returned as a view/reshape of the kernel's buffer."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    tl.store(out_ptr + offs, tl.where(x > 0, x, 0.0), mask=mask)


def launch(flat, out_flat):
    n = flat.numel()
    pass_count = 0
    grid = (triton.cdiv(n, 256),)
    relu_kernel[grid](flat, out_flat, n, BLOCK=256)
    return pass_count


class ModelNew(nn.Module):
    def forward(self, x):
        shape = x.shape
        flat = x.contiguous().view(-1)
        out = torch.zeros(flat.shape[0], device=x.device, dtype=x.dtype)
        launch(flat, out)
        return out.view(shape[0], -1).reshape(shape)
