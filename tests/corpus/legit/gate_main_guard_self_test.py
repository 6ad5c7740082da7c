"""LEGIT (round 5: a self-test block under if __name__ == "__main__", which the judge never runs). ReLU kernel with the usual self-test under if __name__ == '__main__'."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu"
EXPECT = "ok"
DEVICE = "cpu"


@triton.jit
def relu_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, tl.maximum(x, 0.0), mask=mask)


def triton_relu(x: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return triton_relu(x.contiguous())


if __name__ == "__main__":

    x = torch.randn(16, 257)
    ref = torch.relu(x)
    out = ModelNew()(x)
    print("max err", (out - ref).abs().max().item())
    torch.testing.assert_close(out, ref)
