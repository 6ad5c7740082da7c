"""LEGIT: a local settings class written with type annotations (`BLOCK: int = 1024`), as LLMs write
dataclass-like configs, then a relu kernel on a flattened view; output reshaped back."""
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
    tl.store(out_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=mask), 0.0), mask=mask)


class ModelNew(nn.Module):
    class Cfg:
        BLOCK: int = 1024
        WARPS: int = 4

    def forward(self, x):
        flat = x.contiguous().view(-1)
        out = torch.empty_like(flat)
        n = flat.numel()
        relu_kernel[(triton.cdiv(n, self.Cfg.BLOCK),)](flat, out, n, BLOCK=self.Cfg.BLOCK,
                                                        num_warps=self.Cfg.WARPS)
        return out.view(x.shape)
