"""Host compute inside a CUDA extension (issue 12, class 1). Copies of device data to the host are refused
at run time by their bytes (`test_timed_verdict.py`; the GPU tests), whatever code makes them: a pattern
scan of C++ was both easy to launder and wrong about ordinary code (a red-team pass on 2026-12-03: 44 of 50
evasions passed it, 17 of 25 legitimate extensions were refused). What the gate keeps is the one thing no
copy shows: host memory the device reads and writes (managed, pinned, mapped). Ordinary host code —
allocation, checks naming ``kCPU``, ``std::`` helpers on sizes, ``.item()`` of a scalar parameter,
pointers with offsets handed to launches, host wrappers, device-to-device and host-to-device copies —
passes."""

from __future__ import annotations

import pytest
from test_static_gate import assert_ok, assert_rejected

KERNEL = """
#include <torch/extension.h>
__global__ void relu_k(const float* x, float* y, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}
"""


def extension(host: str, forward: str = "return self.ext.f(x.contiguous())", args: str = "torch::Tensor x") -> str:
    body = "\n".join("        " + line for line in forward.splitlines())
    return f'''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

CUDA_SRC = r"""{KERNEL}
torch::Tensor f({args}) {{
{host}
}}
"""


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.ext = load_inline(name="host_ext", cpp_sources="torch::Tensor f({args});", cuda_sources=CUDA_SRC,
                               functions=["f"], verbose=False)

    def forward(self, x):
{body}
'''


LAUNCH = "    relu_k<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);\n"
HEAD = "    auto y = torch::empty_like(x);\n    long n = x.numel();\n"

HOST_MEMORY = {  # host memory the device writes into: the answer read and written on the host, no copy at all
    "managed_memory": HEAD + "    float* m;\n    cudaMallocManaged(&m, n * 4);\n" + LAUNCH + "    return y;",
    "pinned_mapped": HEAD + "    float* m;\n    cudaHostAlloc(&m, n * 4, cudaHostAllocMapped);\n" + LAUNCH + "    return y;",
    "registered": HEAD + "    static float h[1 << 20];\n    cudaHostRegister(h, sizeof(h), 0);\n" + LAUNCH + "    return y;",
    "driver_api": HEAD + "    CUdeviceptr m;\n    cuMemAllocManaged(&m, n * 4, 1);\n" + LAUNCH + "    return y;",
}


@pytest.mark.parametrize("name", sorted(HOST_MEMORY))
def test_host_memory_the_device_writes_is_rejected(name):
    g = assert_rejected(extension(HOST_MEMORY[name]), "host_compute", backend="cuda_inline")
    assert "host memory" in g.detail


LEGIT_HOST = {
    "launch_with_pointers": HEAD + "    float* xp = x.data_ptr<float>();\n    float* yp = y.data_ptr<float>();\n"
                            "    TORCH_CHECK(xp != nullptr, \"x must not be empty on the cpu\");\n"
                            "    relu_k<<<(n + 255) / 256, 256>>>(xp, yp, n);\n    return y;",
    "chunked_launches": HEAD + "    const float* xp = x.data_ptr<float>();\n    float* yp = y.data_ptr<float>();\n"
                        "    for (long off = 0; off < n; off += 1 << 20)\n"
                        "        relu_k<<<((1 << 20) + 255) / 256, 256>>>(xp + off, yp + off, std::min(n - off, 1L << 20));\n"
                        "    return y;",
    "upload_and_device_copy": HEAD + "    float host_scale[1] = {1.0f};\n    float* d;\n"
                              "    cudaMemcpyToSymbol(c_scale, host_scale, sizeof(float));\n"
                              "    cudaMemcpy(y.data_ptr<float>(), x.data_ptr<float>(), n * 4, cudaMemcpyDeviceToDevice);\n"
                              + LAUNCH + "    return y;",
    "host_wrapper": HEAD + "    launch(x.data_ptr<float>(), y.data_ptr<float>(), n);\n    return y;",
    "checks_and_std_helpers": HEAD + "    TORCH_CHECK(x.device().type() != torch::kCPU, \"x on the cpu\");\n"
                              "    TORCH_CHECK(x.dim() >= 1, \"x has \" + std::to_string(x.dim()) + \" dims\");\n"
                              "    std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());\n"
                              "    int blocks = std::min<int64_t>((n + 255) / 256, 65535);\n"
                              "    relu_k<<<blocks, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);\n    return y;",
    "scalar_parameter_and_batched_offsets": HEAD + "    float s = x.numel() ? 1.0f : 0.0f;\n"
                                            "    const float* xp = x.data_ptr<float>();\n    float* op = y.data_ptr<float>();\n"
                                            "    for (long b = 0; b < 4; ++b)\n"
                                            "        relu_k<<<(n / 4 + 255) / 256, 256>>>(&xp[b * n / 4], &op[b * n / 4], n / 4);\n"
                                            "    return y;",
    "device_copy_default_kind": HEAD + "    auto tmp = torch::empty_like(x);\n"
                                "    cudaMemcpyAsync(tmp.data_ptr<float>(), x.data_ptr<float>(), n * 4, cudaMemcpyDefault, 0);\n"
                                + LAUNCH + "    return y;",
    "options_on_the_device": "    auto y = torch::empty({x.size(0)}, torch::TensorOptions().dtype(torch::kFloat32)"
                             ".device(torch::kCUDA));\n    long n = x.numel();\n" + LAUNCH + "    return y;",
}


@pytest.mark.parametrize("name", sorted(LEGIT_HOST))
def test_legitimate_host_code_passes(name):
    src = extension(LEGIT_HOST[name])
    if name == "host_wrapper":
        src = src.replace("torch::Tensor f(", "void launch(const float* __restrict__ xp, float* yp, long n) {\n"
                          "    relu_k<<<(n + 255) / 256, 256>>>(xp, yp, n);\n}\ntorch::Tensor f(", 1)
    if name == "upload_and_device_copy":
        src = src.replace("__global__ void relu_k", "__constant__ float c_scale[1];\n__global__ void relu_k")
    assert_ok(src, backend="cuda_inline")
