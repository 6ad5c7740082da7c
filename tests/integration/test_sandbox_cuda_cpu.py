"""CUDA candidates on a machine without a GPU: nvcc compile check, else a clear "needs a GPU" verdict."""

from __future__ import annotations

import shutil

import pytest
import torch
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.sandbox.cuda_check import cuda_sources
from leap.tasks.suite import get_builtin

pytestmark = pytest.mark.skipif(torch.cuda.is_available(), reason="CPU-only behaviour")
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not installed")


@pytest.fixture(scope="module")
def sb(tmp_path_factory):
    cfg = SandboxConfig(workers=1, prewarm=0, cache_dir=tmp_path_factory.mktemp("cache"))
    with Sandbox(cfg, device="cpu") as box:
        yield box


def test_cuda_sources_are_read_statically():
    assert "relu_k" in cuda_sources(K.NVRTC_RELU, "cuda_nvrtc")[0]
    units = cuda_sources(K.INLINE_RELU, "cuda_inline")
    assert len(units) == 1 and "torch::Tensor relu_cuda" in units[0]


@needs_nvcc
def test_nvrtc_compiles_and_says_it_needs_a_gpu(sb):
    relu = get_builtin("relu_fp32")
    v = sb.verify(relu, K.NVRTC_RELU)
    assert v.backend == "cuda_nvrtc" and v.compiled and not v.correct
    assert "needs a CUDA GPU" in v.feedback
    bad = sb.verify(relu, K.NVRTC_RELU_SYNTAX)
    assert bad.status == "compile_error" and not bad.compiled
    assert "kernel.cu(4)" in bad.feedback and "error" in bad.feedback


@needs_nvcc
@pytest.mark.slow
def test_inline_compile_error_is_reported(sb):
    v = sb.verify(get_builtin("relu_fp32"), K.INLINE_RELU_ERROR)
    assert v.status == "compile_error" and "error" in v.feedback
