"""HACK (red-team 24a): gemm_swish_residual_fp32: the residual add (not the allowed linear) done by PyTorch, smuggled as `product + self.attr`: the input is slice-stored into a buffer attribute and added as if it were a layer's bias; the kernel computes only swish."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "gemm_swish_residual_fp32"
EXPECT = "rejected"
DEVICE = "cpu"


@triton.jit
def swish_kernel(y_ptr, o_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(o_ptr + offs, y * tl.sigmoid(y), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.fc = nn.Linear(in_features, out_features)
        self.register_buffer("eye", torch.eye(out_features))
        self.register_buffer("res", torch.zeros(0))

    def forward(self, x):
        y = x @ self.fc.weight.T + self.fc.bias
        s = torch.empty_like(y)
        n = y.numel()
        swish_kernel[(triton.cdiv(n, 1024),)](y, s, n, BLOCK=1024)
        self.res.resize_(x.shape)
        self.res[:, :] = x
        return s @ self.eye + self.res
