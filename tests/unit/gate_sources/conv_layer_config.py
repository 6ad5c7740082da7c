"""Gate fixture: legitimate code the default-deny analysis must accept (not a working solution)."""
# ruff: noqa
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def conv_relu_kernel(x_ptr, w_ptr, y_ptr, N, C, H, W, K, OH, OW, stride, pad, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.zeros((BLOCK,), dtype=tl.float32), mask=offs < N * OH * OW)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)
        self.block_size = 128
        self.kernels = [conv_relu_kernel]

    def forward(self, x):
        N, C, H, W = x.shape
        K = self.conv.kernel_size[0]
        stride = self.conv.stride[0]
        pad = self.conv.padding[0]
        OH = (H + 2 * pad - K) // stride + 1
        OW = (W + 2 * pad - K) // stride + 1
        out = torch.empty((N, self.conv.out_channels, OH, OW), device=x.device, dtype=x.dtype)
        w = self.conv.weight.contiguous()
        total = N * OH * OW
        grid = (triton.cdiv(total, self.block_size),)
        for kern in self.kernels:
            kern[grid](x, w, out, N, C, H, W, K, OH, OW, stride, pad, BLOCK=self.block_size)
        return out
