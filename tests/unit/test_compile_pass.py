"""The compile pass's own logic on the CPU (real Triton JIT objects; the CUDA compile itself runs in
tests/gpu/test_compile_pass_gpu.py): launches are forced to compile-only, autotuned kernels compile each
config without choosing one, and Triton is restored whatever the forward does."""

from __future__ import annotations

import pytest
import torch
from triton.runtime.autotuner import Autotuner
from triton.runtime.jit import JITFunction

from leap.sandbox.worker import compile_pass


def _kernel(x_ptr, n, BLOCK):  # noqa: N803 - Triton style
    pass


@pytest.fixture
def calls(monkeypatch):
    seen = []

    def fake_run(self, *args, grid, warmup, **kwargs):  # the CUDA compile is what cannot run here
        seen.append((warmup, kwargs.get("BLOCK")))

    monkeypatch.setattr(compile_pass, "_JIT_RUN", fake_run)
    return seen


def test_launches_compile_only_and_triton_is_restored(calls):
    kern = JITFunction(_kernel)

    class M(torch.nn.Module):
        def forward(self, x):
            kern[(1,)](x, 4, BLOCK=16)
            return x

    before = (JITFunction.run, Autotuner.run)
    assert compile_pass.compile_kernels(M(), [torch.ones(4)])
    assert calls == [(True, 16)]
    assert (JITFunction.run, Autotuner.run) == before


def test_autotuned_kernel_compiles_every_config_and_chooses_none(calls):
    import triton

    tuned = Autotuner(JITFunction(_kernel), ["x_ptr", "n", "BLOCK"],
                      [triton.Config({"BLOCK": 16}), triton.Config({"BLOCK": 32})], key=["n"],
                      reset_to_zero=None, restore_value=None)

    class M(torch.nn.Module):
        def forward(self, x):
            tuned[(1,)](x, 4)
            return x

    assert compile_pass.compile_kernels(M(), [torch.ones(4)])
    assert sorted(calls) == [(True, 16), (True, 32)]
    assert tuned.cache == {}


def test_a_failing_forward_is_left_to_the_real_trial(calls):
    class Bad(torch.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    before = JITFunction.run
    assert compile_pass.compile_kernels(Bad(), [torch.ones(1)]) is False
    assert JITFunction.run is before
