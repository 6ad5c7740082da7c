"""LEGIT (gate, configs): a dataclass and a namedtuple carry the launch settings."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
import collections
import dataclasses

TASK = "relu"
EXPECT = 'ok'
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


Launch = collections.namedtuple("Launch", "block warps")


@dataclasses.dataclass
class Settings:
    launch: Launch
    contiguous: bool = True


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.settings = Settings(Launch(1024, 4))

    def forward(self, x):
        if self.settings.contiguous:
            x = x.contiguous()
        out = torch.empty_like(x)
        n = x.numel()
        cfg = self.settings.launch
        relu_kernel[(triton.cdiv(n, cfg.block),)](x, out, n, BLOCK=cfg.block, num_warps=cfg.warps)
        return out
