"""LEGIT: index_add via tl.atomic_add; single-config autotune with reset_to_zero=['out_ptr'] on the zero-initialised output."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "index_add_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.autotune(configs=[triton.Config({"BLOCK_R": 16, "BLOCK_D": 32}, num_warps=4)],
                 key=["n_src", "dim"], reset_to_zero=["out_ptr"])
@triton.jit
def index_add_kernel(src_ptr, idx_ptr, out_ptr, n_src, dim, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    rmask = rows < n_src
    m = rmask[:, None] & (cols[None, :] < dim)
    dst = tl.load(idx_ptr + rows, mask=rmask, other=0)
    v = tl.load(src_ptr + rows[:, None] * dim + cols[None, :], mask=m, other=0.0)
    tl.atomic_add(out_ptr + dst[:, None] * dim + cols[None, :], v, mask=m, sem="relaxed")


class ModelNew(nn.Module):
    def __init__(self, out_rows):
        super().__init__()
        self.out_rows = out_rows

    def forward(self, src, idx):
        src = src.contiguous()
        n_src, dim = src.shape
        out = torch.zeros(self.out_rows, dim, dtype=src.dtype, device=src.device)
        grid = lambda meta: (triton.cdiv(n_src, meta["BLOCK_R"]), triton.cdiv(dim, meta["BLOCK_D"]))
        index_add_kernel[grid](src, idx, out, n_src, dim)
        return out
