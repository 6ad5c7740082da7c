"""LEGIT (mixed, KernelBench style): a Triton tl.dot matmul and a CUDA relu epilogue from load_inline, the
extension built lazily on first forward into `self._ext` (None in __init__), a common pattern to keep import cheap. Forward needs
CUDA on every call, so a CPU judge should say needs_gpu (nvcc compile check), as for any CUDA candidate.
Probe of the scheduler's backend choice: the gate's `launched` must contain cuda_inline, else a Triton run on
the CPU interpreter would blame a correct candidate."""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from torch.utils.cpp_extension import load_inline

TASK = "matmul_relu"
EXPECT = "needs_gpu"
EXPECT_GPU = "ok"  # not yet run on a GPU (added 2026-12-04, round 13)
DEVICE = "cpu"

CUDA_SRC = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
__global__ void relu_k(float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = y[i] > 0.f ? y[i] : 0.f;
}
torch::Tensor relu_inplace(torch::Tensor y) {
    long n = y.numel();
    relu_k<<<(n + 255) / 256, 256, 0, at::cuda::getCurrentCUDAStream()>>>(y.data_ptr<float>(), n);
    return y;
}
"""
CPP_SRC = "torch::Tensor relu_inplace(torch::Tensor y);"

@triton.jit
def mm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,
              BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    pm = tl.program_id(0)
    pn = tl.program_id(1)
    rm = pm * BM + tl.arange(0, BM)
    rn = pn * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k0 in range(0, K, BK):
        a = tl.load(a_ptr + rm[:, None] * sam + (k0 + rk)[None, :] * sak,
                    mask=(rm[:, None] < M) & ((k0 + rk)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + rk)[:, None] * sbk + rn[None, :] * sbn,
                    mask=((k0 + rk)[:, None] < K) & (rn[None, :] < N), other=0.0)
        acc += tl.dot(a, b, allow_tf32=False)
    tl.store(c_ptr + rm[:, None] * scm + rn[None, :] * scn, acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self._ext = None

    def forward(self, a, b):
        if self._ext is None:
            self._ext = load_inline(name="rt13_mixed_relu", cpp_sources=CPP_SRC, cuda_sources=CUDA_SRC,
                                    functions=["relu_inplace"], verbose=False)
        M, K = a.shape
        N = b.shape[1]
        c = torch.empty((M, N), device=a.device, dtype=a.dtype)
        mm_kernel[(triton.cdiv(M, 32), triton.cdiv(N, 32))](a, b, c, M, N, K, a.stride(0), a.stride(1),
                                                            b.stride(0), b.stride(1), c.stride(0), c.stride(1),
                                                            BM=32, BN=32, BK=32)
        return self._ext.relu_inplace(c)
