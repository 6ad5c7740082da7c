"""Backend detection from candidate sources, and resolution of a requested backend."""

import pytest

from leap.sandbox.gate.backends import BackendError, detect_backend, detect_backends, resolve_backend

TRITON = """
import torch, triton
import triton.language as tl

@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pass
"""
TRITON_AUTOTUNE = """
import triton as tr
@tr.autotune(configs=[], key=["n"])
@tr.jit
def k(x): pass
"""
TRITON_FROM = "from triton import jit\n@jit\ndef k(x): pass\n"
INLINE = """
from torch.utils.cpp_extension import load_inline
mod = load_inline(name="relu", cpp_sources="", cuda_sources="__global__ void k() {}", functions=["f"])
"""
CUPY = """
import cupy
_k = cupy.RawKernel(r'extern "C" __global__ void k(float* x) {}', "k")
"""
CUDA_CORE = """
from cuda.core.experimental import Device, Program, ProgramOptions
prog = Program(SRC, code_type="c++")
"""
PLAIN_TORCH = """
import torch
# @triton.jit  (a comment does not count)
class ModelNew(torch.nn.Module):
    '''uses load_inline? no: only a docstring'''
    def forward(self, x):
        return torch.relu(x)
"""


@pytest.mark.parametrize("src,expected", [
    (TRITON, "triton"), (TRITON_AUTOTUNE, "triton"), (TRITON_FROM, "triton"), (INLINE, "cuda_inline"),
    (CUPY, "cuda_nvrtc"), (CUDA_CORE, "cuda_nvrtc"), (PLAIN_TORCH, None), ("", None),
])
def test_detect(src, expected):
    assert detect_backend(src) == expected


def test_unparsable_source_falls_back_to_text_without_comments():
    assert detect_backend("@triton.jit\ndef k(:\n") == "triton"
    assert detect_backend("# load_inline(\ndef k(:\n") is None


def test_mixed_source_prefers_the_one_that_decides_the_build():
    assert detect_backends(INLINE + TRITON) == ("cuda_inline", "triton")
    assert detect_backend(INLINE + TRITON) == "cuda_inline"


def test_resolve():
    assert resolve_backend(TRITON, "auto") == "triton"
    assert resolve_backend(TRITON, None) == "triton"
    assert resolve_backend(CUPY, "cuda_nvrtc") == "cuda_nvrtc"
    assert resolve_backend(INLINE + TRITON, "triton") == "triton"
    assert resolve_backend(PLAIN_TORCH, "triton") == "triton"  # the static gate rejects it later
    with pytest.raises(BackendError, match="no custom kernel"):
        resolve_backend(PLAIN_TORCH, "auto")
    with pytest.raises(BackendError, match="unknown backend 'cuda'"):
        resolve_backend(TRITON, "cuda")
    with pytest.raises(BackendError, match="requested but the solution uses triton"):
        resolve_backend(TRITON, "cuda_nvrtc")
