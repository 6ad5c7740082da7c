"""LEGIT: LLM-style ReLU: a typed wrapper function, flatten with view(-1), grid lambda over META, tl.where, num_warps.
Observed (round 14, CPU): ok."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask, other=0.0)
    out = tl.where(x > 0, x, 0.0)
    tl.store(out_ptr + offsets, out, mask=mask)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    if not x.is_contiguous():
        x = x.contiguous()
    out = torch.empty(x.shape, device=x.device, dtype=x.dtype)
    x_flat, out_flat = x.view(-1), out.view(-1)
    n_elements = x_flat.numel()
    grid = lambda META: (triton.cdiv(n_elements, META["BLOCK_SIZE"]),)  # noqa: E731
    relu_kernel[grid](x_flat, out_flat, n_elements, BLOCK_SIZE=1024, num_warps=4)
    return out


class ModelNew(nn.Module):
    def __init__(self) -> None:
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return triton_relu(x)
