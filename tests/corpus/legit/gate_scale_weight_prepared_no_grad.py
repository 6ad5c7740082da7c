"""LEGIT (LLM style): scale with the weight flattened/contiguous-ified in __init__ as a buffer-like attribute,
forward under torch.no_grad(), a helper launch function, torch.empty_like + kernel, 2-D grid over rows/cols."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def scale_rows_kernel(x_ptr, w_ptr, out_ptr, n_cols, stride_row, BLOCK_N: tl.constexpr):
    row = tl.program_id(0)
    col_block = tl.program_id(1)
    cols = col_block * BLOCK_N + tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * stride_row + cols, mask=mask, other=0.0)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0)
    tl.store(out_ptr + row * stride_row + cols, x * w, mask=mask)


def triton_scale(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    assert x.shape[-1] == w.shape[0], "shape mismatch"
    x2 = x.reshape(-1, x.shape[-1]).contiguous()
    out = torch.empty_like(x2)
    n_rows, n_cols = x2.shape
    BLOCK_N = 1024
    grid = (n_rows, triton.cdiv(n_cols, BLOCK_N))
    scale_rows_kernel[grid](x2, w, out, n_cols, x2.stride(0), BLOCK_N=BLOCK_N)
    return out.view_as(x)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        with torch.no_grad():
            w = self.weight.detach().contiguous()
            return triton_scale(x, w)
