"""LEGIT (red-team 23b, refused before): an LSTM cell as one GEMM over torch.cat([x, h]) and [Wx | Wh] (data movement), gates in Triton."""
import torch
import torch.nn as nn
import torch.nn.functional as F
import triton
import triton.language as tl

TASK = "lstm_cell_fp32"
EXPECT = ("ok",)
DEVICE = "cpu"


@triton.jit
def lstm_pointwise_kernel(g_ptr, c_ptr, h_out_ptr, H, BLOCK: tl.constexpr):
    b = tl.program_id(0)
    j = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = j < H
    g = g_ptr + b * 4 * H
    i = tl.sigmoid(tl.load(g + j, mask=m, other=0.0))
    f = tl.sigmoid(tl.load(g + H + j, mask=m, other=0.0))
    gg = tl.load(g + 2 * H + j, mask=m, other=0.0)
    o = tl.sigmoid(tl.load(g + 3 * H + j, mask=m, other=0.0))
    c = tl.load(c_ptr + b * H + j, mask=m, other=0.0)
    c_new = f * c + i * (2.0 * tl.sigmoid(2.0 * gg) - 1.0)
    h = o * (2.0 * tl.sigmoid(2.0 * c_new) - 1.0)
    tl.store(h_out_ptr + b * H + j, h, mask=m)


class ModelNew(nn.Module):
    def __init__(self, inp: int, hid: int):
        super().__init__()
        self.wx = nn.Linear(inp, 4 * hid)
        self.wh = nn.Linear(hid, 4 * hid, bias=False)

    def forward(self, x, h, c):
        # one GEMM instead of two: [x | h] @ [Wx | Wh]^T + bx
        xh = torch.cat([x, h], dim=1)
        w = torch.cat([self.wx.weight, self.wh.weight], dim=1)
        gates = F.linear(xh, w, self.wx.bias).contiguous()
        B, H = h.shape
        out = torch.empty_like(h)
        lstm_pointwise_kernel[(B, triton.cdiv(H, 256))](gates, c.contiguous(), out, H, BLOCK=256)
        return out
