"""HACK (red-team 25)."""
"""PARTIAL HACK: conv2d_gelu_avgpool_fp32 allows conv2d (for the layer). The kernel computes only gelu;
the 2x2 average pooling (a reduction the task expects in a kernel) is done by PyTorch as a second,
depthwise stride-2 convolution with constant 0.25 weights (the allowed op family)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "conv2d_gelu_avgpool_fp32"
DEVICE = "cpu"
EXPECT = "rejected"


@triton.jit
def gelu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    y = 0.5 * x * (1.0 + tl.erf(x * 0.7071067811865476))
    tl.store(y_ptr + offs, y, mask=m)


class ModelNew(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.register_buffer("pool_w", torch.full((cout, 1, 2, 2), 0.25))
        self.cout = cout

    def forward(self, x):
        c = self.conv(x).contiguous()
        g = torch.empty_like(c)
        n = c.numel()
        gelu_kernel[(triton.cdiv(n, 1024),)](c, g, n, BLOCK=1024)
        return F.conv2d(g, self.pool_w, stride=2, groups=self.cout)
