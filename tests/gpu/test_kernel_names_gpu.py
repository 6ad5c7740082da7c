"""What the custom-kernel share assumes about PyTorch's CUDA kernel names (`worker/kernel_fraction`), checked
on the GPU: the kernels of the allowed ops' library calls match `ALLOWED_KERNELS`, a dtype-converting copy
matches `CAST` (never neutral), a plain copy matches `COPY` and not `CAST` (the bytes copied to the host:
`test_sandbox_gpu.py`)."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from leap.sandbox.worker.kernel_fraction import CAST, COPY, allowed_kernels, profile_forward

pytestmark = pytest.mark.gpu


def _names(fn, *args) -> list[str]:
    kernels, *_ = profile_forward(fn, args)
    print(fn.__name__ if hasattr(fn, "__name__") else fn, sorted({n[:120] for n, _ in kernels}))
    return [n for n, _ in kernels]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_allowed_ops_library_kernels_match_their_families(dtype):
    x = torch.randn(512, 1024, device="cuda", dtype=dtype)
    w = torch.randn(2048, 1024, device="cuda", dtype=dtype)
    b = torch.randn(2048, device="cuda", dtype=dtype)
    linear = allowed_kernels(["linear"])
    assert all(linear.search(n) for n in _names(lambda a: F.linear(a, w), x))
    img = torch.randn(8, 32, 64, 64, device="cuda", dtype=dtype)
    k = torch.randn(64, 32, 3, 3, device="cuda", dtype=dtype)
    conv = allowed_kernels(["conv2d"])
    names = _names(lambda a: F.conv2d(a, k, padding=1), img)
    assert names and all(conv.search(n) for n in names), names
    # the bias add of F.linear: fused into the GEMM (cublasLt) or a separate elementwise kernel (not neutral)
    print([n[:100] for n in _names(lambda a: F.linear(a, w, b), x)])


def test_copies_and_casts_are_named_as_assumed():
    x = torch.randn(1 << 22, device="cuda")
    same = torch.empty_like(x)
    plain = _names(lambda a: same.copy_(a), x)
    m = torch.randn(2048, 2048, device="cuda")
    dst = torch.empty_like(m)
    strided = _names(lambda a: dst.copy_(a.t()), m)  # a transpose: a same-dtype copy kernel, not a memcpy
    for names in (plain, strided):
        assert names and all(COPY.search(n) and not CAST.search(n) for n in names), names
    for dtype in (torch.int32, torch.float16, torch.bfloat16):
        out = torch.empty(1 << 22, device="cuda", dtype=dtype)
        conv = _names(lambda a, d=out: d.copy_(a), x)
        assert conv and all(COPY.search(n) and CAST.search(n) for n in conv), (dtype, conv)
    mi = torch.empty(2048, 2048, device="cuda", dtype=torch.int32)
    conv_strided = _names(lambda a: mi.copy_(a.t()), m)  # converting and transposing at once
    assert conv_strided and all(CAST.search(n) for n in conv_strided), conv_strided
