"""Task and candidate sources for the sandbox integration tests (Triton, run by the CPU interpreter)."""

ROWSUM_TASK = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return x.sum(dim=1)

def get_inputs():
    return [torch.randn(64, 1000)]

def get_small_inputs():
    return [torch.randn(6, 50)]

def get_init_inputs():
    return []
'''

SOFTMAX_TASK = ROWSUM_TASK.replace("return x.sum(dim=1)", "return torch.softmax(x, dim=-1)")

HEADER = '''import torch
import torch.nn as nn
import triton
import triton.language as tl
'''

RELU = HEADER + '''

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, y, n, BLOCK=1024)
        return y
'''

RELU_MASK_OFF_BY_ONE = RELU.replace("mask = offs < n", "mask = offs < n - 1")
RELU_UNWRITTEN_TAIL = RELU.replace("relu_kernel[(triton.cdiv(n, 1024),)]", "relu_kernel[(n // 1024,)]")
RELU_WRONG_DTYPE = RELU.replace("y = torch.empty_like(x)", "y = torch.empty_like(x, dtype=torch.float64)")
RELU_PY_ERROR = RELU.replace("n = x.numel()", "n = x.shape[7]")
RELU_SYNTAX_ERROR = RELU.replace("def forward(self, x):", "def forward(self, x)")
RELU_BAD_TRITON = RELU.replace("tl.maximum(x, 0.0)", "tl.no_such_op(x, 0.0)")

ROWSUM = HEADER + '''

@triton.jit
def rowsum_kernel(x_ptr, y_ptr, rows, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * cols + offs, mask=offs < cols, other=0.0)
    tl.store(y_ptr + row, tl.sum(x, axis=0))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty(rows, device=x.device, dtype=x.dtype)
        rowsum_kernel[(rows,)](x, y, rows, cols, BLOCK=triton.next_power_of_2(cols))
        return y
'''

# sums down a column (stride rows) instead of along the row
ROWSUM_WRONG_AXIS = ROWSUM.replace("x_ptr + row * cols + offs, mask=offs < cols",
                                   "x_ptr + offs * cols + row, mask=offs < rows")

SOFTMAX = HEADER + '''

@triton.jit
def softmax_kernel(x_ptr, y_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    x = tl.load(x_ptr + row * cols + offs, mask=mask, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    tl.store(y_ptr + row * cols + offs, e / tl.sum(e, axis=0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        rows, cols = x.shape
        y = torch.empty_like(x)
        softmax_kernel[(rows,)](x, y, cols, BLOCK=triton.next_power_of_2(cols))
        return y
'''

SOFTMAX_NO_MAX_SUBTRACT = SOFTMAX.replace("x = x - tl.max(x, axis=0)", "x = x")

# faults (run with the static gate off: they use constructs the gate would reject)
HANG = RELU.replace("y = torch.empty_like(x)", "y = torch.empty_like(x)\n        while True:\n            pass")
SEGFAULT = RELU.replace("y = torch.empty_like(x)",
                        "import ctypes\n        ctypes.string_at(0)\n        y = torch.empty_like(x)")
EXIT_EARLY = RELU.replace("y = torch.empty_like(x)", "import os\n        os._exit(3)")
PRINTS = RELU.replace("y = torch.empty_like(x)", "print('noise on stdout')\n        y = torch.empty_like(x)")

RELU_MUTATES_INPUT = RELU.replace("tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)",
                                  "tl.store(y_ptr + offs, tl.maximum(x, 0.0), mask=mask)\n"
                                  "    tl.store(x_ptr + offs, x * 0.5, mask=mask)")
# reads scratch memory it never wrote; the value hides within tolerance, but the bits follow the poison
RELU_READS_UNINIT = HEADER + '''

@triton.jit
def relu_kernel(x_ptr, t_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    t = tl.load(t_ptr + offs, mask=mask)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0) + tl.where(t < 0, 1e-30, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        t = torch.empty_like(x)
        y = torch.empty_like(x)
        n = x.numel()
        relu_kernel[(triton.cdiv(n, 1024),)](x, t, y, n, BLOCK=1024)
        return y
'''

NVRTC_RELU = '''import cupy as cp
import numpy as np
import torch
import torch.nn as nn

SRC = r"""
extern "C" __global__ void relu_k(const float* x, float* y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.kernel = cp.RawKernel(SRC, "relu_k")

    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        n = x.numel()
        with cp.cuda.ExternalStream(torch.cuda.current_stream().cuda_stream):
            self.kernel(((n + 255) // 256,), (256,), (x.data_ptr(), y.data_ptr(), np.int64(n)))
        return y
'''
NVRTC_RELU_SYNTAX = NVRTC_RELU.replace("y[i] = x[i] > 0.f ?", "y[i] = x[i] >>> 0.f ?")

INLINE_RELU = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""
#include <torch/extension.h>
__global__ void relu_k(const float* x, float* y, int64_t n) {
    int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int64_t n = x.numel();
    relu_k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor relu_cuda(torch::Tensor x);"
ext = load_inline(name="leap_relu_ext", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC, functions=["relu_cuda"])


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return ext.relu_cuda(x.contiguous())
'''
INLINE_RELU_ERROR = INLINE_RELU.replace("y[i] = x[i] > 0.f ?", "y[i] = x[i] > 0.f ?? ")

NVRTC_ILLEGAL_ADDRESS = NVRTC_RELU.replace("if (i < n) y[i] =", "if (i < n) y[i + (1LL << 40)] =")
NVRTC_INFINITE_LOOP = NVRTC_RELU.replace(
    "if (i < n) y[i] =", "volatile const float* vx = x;\n    while (vx[0] != 1234.5f) { }\n    if (i < n) y[i] =")

RELU_RETURNS_CPU = RELU.replace("        return y\n", "        return y.cpu()\n")
