"""LEGIT (round 5: a dataclass launcher with field(default_factory=list)). Scale: a launcher object with __call__, lru_cache'd config, property, classmethod, checks with f-strings."""
import functools
from dataclasses import dataclass, field
from typing import Final, List

import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "scale"
EXPECT = "ok"
DEVICE = "cpu"

MAX_BLOCK: Final[int] = 4096


@triton.jit
def scale_kernel(x_ptr, w_ptr, o_ptr, R, C, sx, so, BLOCK_C: tl.constexpr):
    row = tl.program_id(0)
    cb = tl.program_id(1)
    c = cb * BLOCK_C + tl.arange(0, BLOCK_C)
    m = c < C
    x = tl.load(x_ptr + row * sx + c, mask=m)
    w = tl.load(w_ptr + c, mask=m)
    tl.store(o_ptr + row * so + c, x * w, mask=m)


@functools.lru_cache(maxsize=None)
def _block_for(cols: int) -> int:
    return min(MAX_BLOCK, triton.next_power_of_2(cols))


@dataclass
class Launcher:
    warps: int = 4
    history: List[int] = field(default_factory=list)

    @classmethod
    def default(cls) -> "Launcher":
        return cls(warps=4)

    @property
    def num_warps(self) -> int:
        return self.warps

    def __call__(self, x: torch.Tensor, w: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        R, C = x.shape
        block = _block_for(C)
        scale_kernel[(R, triton.cdiv(C, block))](x, w, out, R, C, x.stride(0), out.stride(0),
                                                BLOCK_C=block, num_warps=self.num_warps)
        return out


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(dim))
        self.launch = Launcher(warps=4)

    @torch.inference_mode()
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not isinstance(x, torch.Tensor):
            raise TypeError("expected a tensor")
        if x.dim() != 2 or x.shape[1] != self.weight.shape[0]:
            raise ValueError(f"bad input shape {tuple(x.shape)} for weight {tuple(self.weight.shape)}")
        if not x.is_floating_point():
            raise TypeError(f"unsupported dtype {x.dtype}")
        x = x.contiguous()
        return self.launch(x, self.weight, torch.empty_like(x))
