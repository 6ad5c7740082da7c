"""libdevice under the CPU interpreter: the common elementwise functions compute what torch computes, in
fp32/fp16/bf16, with scalars and tensors mixed; any other one raises the error the judge reads as
``needs_gpu`` (a GPU-only function is not the candidate's runtime error)."""

from __future__ import annotations

import math
import os

import pytest
import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

from leap.sandbox.judge.verifier import needs_gpu_error
from leap.sandbox.worker import interpreter_bf16, interpreter_libdevice

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_INTERPRET") != "1",
                                reason="needs TRITON_INTERPRET=1 (the CPU interpreter; CI sets it)")


@pytest.fixture(scope="module")
def kernels():
    interpreter_bf16.install()
    assert interpreter_libdevice.install()

    @triton.jit
    def unary(x_ptr, o_ptr, n, WHICH: tl.constexpr, B: tl.constexpr):
        i = tl.program_id(0) * B + tl.arange(0, B)
        x = tl.load(x_ptr + i, mask=i < n)
        if WHICH == 0:
            y = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
        elif WHICH == 1:
            y = libdevice.tanh(x) + libdevice.pow(x, 2.0)
        elif WHICH == 2:
            y = libdevice.fma(x, x, 1.0) + libdevice.atan2(x, 2.0)
        elif WHICH == 4:  # tests of a float: a bool (isnan, isinf) or an int32 (signbit)
            y = tl.where(libdevice.isnan(x) | libdevice.isinf(x), 0.0, x) + libdevice.signbit(x).to(tl.float32)
        else:
            y = libdevice.j0(x)
        tl.store(o_ptr + i, y, mask=i < n)

    def run(x, which):
        o = torch.empty_like(x)
        unary[(triton.cdiv(x.numel(), 512),)](x, o, x.numel(), WHICH=which, B=512)
        return o

    return run


REFS = {0: lambda x: torch.nn.functional.gelu(x), 1: lambda x: torch.tanh(x) + x * x,
        2: lambda x: x * x + 1.0 + torch.atan2(x, torch.full_like(x, 2.0)),
        4: lambda x: torch.where(x.isnan() | x.isinf(), 0.0, x) + x.signbit()}


@pytest.mark.parametrize("dtype,tol", [(torch.float32, 1e-5), (torch.float16, 1e-2), (torch.bfloat16, 5e-2)])
@pytest.mark.parametrize("which", sorted(REFS))
def test_common_functions_compute_what_torch_computes(kernels, which, dtype, tol):
    x = torch.randn(1500, generator=torch.Generator().manual_seed(which)).to(dtype)
    if which == 4:
        if dtype != torch.float32:
            pytest.skip("libdevice's tests take fp32/fp64 only")
        x[:3] = torch.tensor([float("nan"), float("inf"), -float("inf")])
    got = kernels(x, which).float()
    want = REFS[which](x.double()).float()
    assert torch.allclose(got, want, rtol=tol, atol=tol), (got - want).abs().max()


def test_other_functions_ask_for_a_gpu(kernels):
    with pytest.raises(Exception) as err:
        kernels(torch.randn(100), 3)
    assert interpreter_libdevice.UNSUPPORTED in str(err.value)
    assert needs_gpu_error(type(err.value).__name__, str(err.value))


def test_the_tables_name_real_libdevice_functions():
    names = set(interpreter_libdevice.UNARY) | set(interpreter_libdevice.BINARY) | set(interpreter_libdevice.TERNARY) \
        | set(interpreter_libdevice.PREDICATES)
    assert names <= {n for n in dir(libdevice) if not n.startswith("_")}
    assert interpreter_libdevice.UNARY["round"](torch.tensor([2.5, -2.5]).numpy()).tolist() == [3.0, -3.0]
    assert interpreter_libdevice.UNARY["erf"](torch.tensor([0.5]).numpy())[0] == pytest.approx(math.erf(0.5))
