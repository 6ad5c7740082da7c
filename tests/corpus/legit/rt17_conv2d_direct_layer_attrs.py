"""LEGIT: direct 3x3 conv in Triton; nn.Conv2d kept as the parameter holder, its padding/kernel_size/out_channels read as config, tl.static_range over taps."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "conv2d_fp32"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def conv2d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, H, W, C_out, OH, OW,
                  KH: tl.constexpr, KW: tl.constexpr, PAD: tl.constexpr,
                  BLOCK_CO: tl.constexpr, BLOCK_W: tl.constexpr):
    pid_nh = tl.program_id(0)          # n * OH + oh
    pid_co = tl.program_id(1)
    n = pid_nh // OH
    oh = pid_nh % OH
    co = pid_co * BLOCK_CO + tl.arange(0, BLOCK_CO)
    ow = tl.arange(0, BLOCK_W)
    acc = tl.zeros((BLOCK_CO, BLOCK_W), dtype=tl.float32)
    for ci in range(0, C_in):
        for kh in tl.static_range(KH):
            ih = oh + kh - PAD
            for kw in tl.static_range(KW):
                iw = ow + kw - PAD
                xm = (iw >= 0) & (iw < W) & (ih >= 0) & (ih < H)
                xv = tl.load(x_ptr + ((n * C_in + ci) * H + ih) * W + iw, mask=xm, other=0.0)
                wv = tl.load(w_ptr + ((co * C_in + ci) * KH + kh) * KW + kw, mask=co < C_out, other=0.0)
                acc += wv[:, None] * xv[None, :]
    acc += tl.load(b_ptr + co, mask=co < C_out, other=0.0)[:, None]
    ym = (co[:, None] < C_out) & (ow[None, :] < OW)
    tl.store(y_ptr + ((n * C_out + co[:, None]) * OH + oh) * OW + ow[None, :], acc, mask=ym)


class ModelNew(nn.Module):
    def __init__(self, cin: int, cout: int):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1)

    def forward(self, x):
        x = x.contiguous()
        N, C, H, W = x.shape
        KH, KW = self.conv.kernel_size
        pad = self.conv.padding[0]
        OH, OW = H + 2 * pad - KH + 1, W + 2 * pad - KW + 1
        cout = self.conv.out_channels
        y = torch.empty((N, cout, OH, OW), device=x.device, dtype=x.dtype)
        BLOCK_CO = 32
        grid = (N * OH, triton.cdiv(cout, BLOCK_CO))
        conv2d_kernel[grid](x, self.conv.weight, self.conv.bias, y, C, H, W, cout, OH, OW,
                            KH=KH, KW=KW, PAD=pad, BLOCK_CO=BLOCK_CO, BLOCK_W=triton.next_power_of_2(OW))
        return y
