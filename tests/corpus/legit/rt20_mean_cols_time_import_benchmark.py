"""LEGIT: mean over dim 0 with one program per column block accumulating rows in a tl.range loop; `import time` at the top of the file serves only the `__main__` benchmark block (the usual LLM/engineer file layout)."""
import time

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "mean_cols_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def col_mean_kernel(x_ptr, y_ptr, n_rows, n_cols, stride, BLOCK_C: tl.constexpr):
    cols = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = cols < n_cols
    acc = tl.zeros([BLOCK_C], tl.float32)
    for r in tl.range(0, n_rows):
        acc += tl.load(x_ptr + r * stride + cols, mask=m, other=0.0)
    tl.store(y_ptr + cols, acc / n_rows, mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        R, C = x.shape
        y = torch.empty(C, dtype=x.dtype, device=x.device)
        col_mean_kernel[(triton.cdiv(C, 64),)](x, y, R, C, x.stride(0), BLOCK_C=64)
        return y


if __name__ == "__main__":
    x = torch.randn(129, 40)
    model = ModelNew()
    t0 = time.perf_counter()
    y = model(x)
    print(f"{(time.perf_counter() - t0) * 1e3:.2f} ms", (y - x.mean(0)).abs().max().item())
