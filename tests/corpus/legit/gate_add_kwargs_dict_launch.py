"""LEGIT: LLM-style add: launch settings kept in a dict on the instance and splatted into the launch; inputs checked with an f-string error.
Observed (round 14, CPU): ok."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "add"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0)
    offsets = pid * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.launch_cfg = {"BLOCK_SIZE": 1024, "num_warps": 4}

    def forward(self, x, y):
        if x.shape != y.shape:
            raise ValueError(f"shape mismatch: {tuple(x.shape)} vs {tuple(y.shape)}")
        x, y = x.contiguous(), y.contiguous()
        out = torch.empty_like(x)
        n = out.numel()
        grid = (triton.cdiv(n, self.launch_cfg["BLOCK_SIZE"]),)
        add_kernel[grid](x, y, out, n, **self.launch_cfg)
        return out
