"""LEGIT (round 32): 3x3/stride-2/pad-1 average pooling (``count_include_pad`` so always /9) on a 2-D grid
(``program_id(0)`` = (n, c) plane, ``program_id(1)`` = block of output pixels); the window is unrolled with
nested ``tl.static_range`` loops and masked loads with ``other=0.0`` for the padding. GPU-correct."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "avgpool2d_fp32"
DEVICE = "cpu"
EXPECT = "ok"


@triton.jit
def avgpool_kernel(x_ptr, out_ptr, H, W, OH, OW, KS: tl.constexpr, ST: tl.constexpr, PAD: tl.constexpr,
                   BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    p = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    pm = p < OH * OW
    oh = p // OW
    ow = p % OW
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for kh in tl.static_range(KS):
        for kw in tl.static_range(KS):
            ih = oh * ST - PAD + kh
            iw = ow * ST - PAD + kw
            m = pm & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            acc += tl.load(x_ptr + plane * H * W + ih * W + iw, mask=m, other=0.0)
    tl.store(out_ptr + plane * OH * OW + p, acc / (KS * KS), mask=pm)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        OH = (H + 2 - 3) // 2 + 1
        OW = (W + 2 - 3) // 2 + 1
        out = torch.empty(N, C, OH, OW, dtype=x.dtype, device=x.device)
        avgpool_kernel[(N * C, triton.cdiv(OH * OW, 64))](x, out, H, W, OH, OW, KS=3, ST=2, PAD=1, BLOCK=64)
        return out
