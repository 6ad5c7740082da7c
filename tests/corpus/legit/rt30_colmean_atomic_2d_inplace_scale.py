"""LEGIT (round 30): column mean with a 2D grid of (row-block, column-block) programs, each adding its tile's
column sums into a zero-filled fp32 buffer with a vector ``tl.atomic_add`` (relaxed), then a second kernel
scaling that fresh buffer in place by 1/R."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "mean_cols_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def _tile_colsum(x_ptr, out_ptr, R, C, stride_r, BR: tl.constexpr, BC: tl.constexpr):
    pid_r = tl.program_id(axis=0)
    pid_c = tl.program_id(axis=1)
    r = pid_r * BR + tl.arange(0, BR)
    c = pid_c * BC + tl.arange(0, BC)
    mask = (r[:, None] < R) & (c[None, :] < C)
    tile = tl.load(x_ptr + r[:, None] * stride_r + c[None, :], mask=mask, other=0.0)
    tl.atomic_add(out_ptr + c, tl.sum(tile, axis=0), mask=c < C, sem="relaxed")


@triton.jit
def _scale_inplace(p, n, s, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    v = tl.load(p + i, mask=m)
    tl.store(p + i, v * s, mask=m)


class ModelNew(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        R, C = x.shape
        out = torch.zeros(C, device=x.device, dtype=torch.float32)
        grid = lambda meta: (triton.cdiv(R, meta["BR"]), triton.cdiv(C, meta["BC"]))
        _tile_colsum[grid](x, out, R, C, x.stride(0), BR=64, BC=32, num_warps=4)
        _scale_inplace[(triton.cdiv(C, 256),)](out, C, 1.0 / R, BLOCK=256)
        return out
