"""The static gate against host compute inside a CUDA extension (issue 12, class 1): device data brought
to the host in C++ (``.cpu()``, a device-to-host ``cudaMemcpy``, managed or pinned memory, ``.item``), and
host code computing through the data pointer of a CPU tensor handed in from Python. Legitimate host code
(allocation, checks, pointers handed to a launch, host-to-device uploads, ``__host__ __device__`` helpers
that only a kernel calls) passes."""

from __future__ import annotations

import pytest
from test_static_gate import assert_ok, assert_rejected

from leap.sandbox.gate.static_cpp import host_code, host_data_access

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

HOST_DATA = {  # host code of f(x) that brings device data to the host
    "cpu_copy": HEAD + "    auto h = x.cpu();\n    float* p = h.data_ptr<float>();\n" + LAUNCH + "    return y;",
    "to_kcpu": HEAD + "    auto h = x.to(torch::kCPU);\n" + LAUNCH + "    return y;",
    "device_cpu_string": HEAD + "    auto h = x.to(torch::Device(\"cpu\"));\n" + LAUNCH + "    return y;",
    "memcpy_device_to_host": HEAD + "    std::vector<float> h(n);\n"
                             "    cudaMemcpy(h.data(), x.data_ptr<float>(), n * 4, cudaMemcpyDeviceToHost);\n" + LAUNCH
                             + "    return y;",
    "memcpy_kind_as_number": HEAD + "    float* h = (float*)malloc(n * 4);\n"
                             "    cudaMemcpy(h, x.data_ptr<float>(), n * 4, (cudaMemcpyKind)2);\n" + LAUNCH + "    return y;",
    "memcpy_default_kind": HEAD + "    float* h = new float[n];\n"
                           "    cudaMemcpyAsync(h, x.data_ptr<float>(), n * 4, cudaMemcpyDefault, 0);\n" + LAUNCH
                           + "    return y;",
    "driver_api_copy": HEAD + "    float* h = new float[n];\n    cuMemcpyDtoH(h, (CUdeviceptr)x.data_ptr<float>(), n * 4);\n"
                       + LAUNCH + "    return y;",
    "managed_memory": HEAD + "    float* m;\n    cudaMallocManaged(&m, n * 4);\n" + LAUNCH + "    return y;",
    "pinned_mapped": HEAD + "    float* m;\n    cudaHostAlloc(&m, n * 4, cudaHostAllocMapped);\n" + LAUNCH + "    return y;",
    "item_per_element": HEAD + "    float s = x[0].item<float>();\n" + LAUNCH + "    return y;",
    "cpu_accessor": HEAD + "    auto a = x.accessor<float, 1>();\n" + LAUNCH + "    return y;",
    "thrust_host_vector": HEAD + "    thrust::host_vector<float> h(n);\n" + LAUNCH + "    return y;",
}


@pytest.mark.parametrize("name", sorted(HOST_DATA))
def test_device_data_brought_to_the_host_in_cpp_is_rejected(name):
    g = assert_rejected(extension(HOST_DATA[name]), "host_compute", backend="cuda_inline")
    assert "host" in g.detail


HOST_LOOP = {  # f(h, y): h is a CPU tensor made in Python; host code computes through its data pointer
    "subscript": "    float* p = h.data_ptr<float>();\n    for (long i = 0; i < h.numel(); i++) p[i] = p[i] > 0 ? p[i] : 0;",
    "dereference": "    auto p = h.data_ptr<float>();\n    for (long i = 0; i < h.numel(); i++, p++) *p = *p > 0 ? *p : 0;",
    "inline_subscript": "    for (long i = 0; i < h.numel(); i++) h.data_ptr<float>()[i] *= (h.data_ptr<float>()[i] > 0);",
    "std_algorithm": "    float* p = static_cast<float*>(h.data_ptr());\n"
                     "    std::transform(p, p + h.numel(), p, [](float v) { return v > 0 ? v : 0; });",
    "c_library": "    float* p = (float*)h.data_ptr();\n    float* q = (float*)y.data_ptr();\n"
                 "    memcpy(q, p, h.numel() * 4);",
    "host_device_helper": "    float* p = h.data_ptr<float>();\n    relu_all(p, h.numel());",
    "cast_then_subscript": "    void* v = h.data_ptr();\n    for (long i = 0; i < h.numel(); i++)\n"
                           "        reinterpret_cast<float*>(v)[i] = fmaxf(((float*)v)[i], 0.f);",
    "c_cast_then_subscript": "    void* v = h.data_ptr();\n    for (long i = 0; i < h.numel(); i++) ((float*)v)[i] = fmaxf(0.f, 1.f);",
}
HELPER = "__host__ __device__ void relu_all(float* q, long n) { for (long i = 0; i < n; i++) q[i] = q[i] > 0 ? q[i] : 0; }\n"


@pytest.mark.parametrize("name", sorted(HOST_LOOP))
def test_host_code_computing_through_a_data_pointer_is_rejected(name):
    host = (HELPER if name == "host_device_helper" else "") + HOST_LOOP[name]
    src = extension(host + "\n    relu_k<<<1, 1>>>(y.data_ptr<float>(), y.data_ptr<float>(), 0);\n    return h;",
                    forward="h = x.cpu()\ny = torch.empty_like(x)\nr = self.ext.f(h, y)\ny.copy_(r)\nreturn y",
                    args="torch::Tensor h, torch::Tensor y")
    if name == "host_device_helper":  # the helper is host code: its body is where the loop is
        src = src.replace("torch::Tensor f(torch::Tensor h, torch::Tensor y) {\n" + HELPER,
                          HELPER + "torch::Tensor f(torch::Tensor h, torch::Tensor y) {\n")
    assert_rejected(src, "host_compute", backend="cuda_inline")


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


def test_host_code_keeps_host_device_helpers_and_blanks_kernel_bodies():
    code = KERNEL + HELPER + "__device__ float twice(float v) { return 2 * v; }\nint main() { return 0; }\n"
    host = host_code(code)
    assert "y[i] = x[i]" not in host and "return 2 * v" not in host  # kernel and device bodies blanked
    assert "q[i] = q[i]" in host and "int main()" in host  # __host__ __device__ and host code kept
    assert host.count("\n") == code.count("\n")  # line numbers unchanged
    assert host_data_access(KERNEL + "int main() { return 0; }") is None  # no data pointer in host code
    assert host_data_access(code).group(0).strip().startswith("q[")  # the helper's loop is host code
