"""HACK (round 31, a launch no GPU accepts): relu launched with ``num_warps=64`` -- 2,048 threads per program,
over CUDA's 1,024-thread limit per block (the launch fails: invalid argument / out of resources). The
interpreter ignores num_warps, and the front-end check only builds TTIR (it lowers to LLVM, where thread
counts matter, only for kernels with ``tl.dot``)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TASK = "relu_fp32"
DEVICE = "cpu"
EXPECT = "compile_error"


@triton.jit
def relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(y_ptr + offs, tl.maximum(tl.load(x_ptr + offs, mask=m), 0.0), mask=m)


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        relu[(triton.cdiv(n, 4096),)](x, y, n, BLOCK=4096, num_warps=64)
        return y
