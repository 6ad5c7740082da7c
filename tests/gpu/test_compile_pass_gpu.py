"""The compile pass on a real GPU: Triton kernels compile without running, an autotuned kernel compiles
every config and chooses none, and the real launch afterwards is correct. Run: pytest -q -m gpu -s
tests/gpu/test_compile_pass_gpu.py"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.sandbox.worker.compile_pass import compile_kernels  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402

pytestmark = pytest.mark.gpu

CANDIDATE = '''
import torch, triton, triton.language as tl

@triton.jit
def double(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2, mask=i < n)

@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256}),
                          triton.Config({"BLOCK": 512})], key=["n"])
@triton.jit
def triple(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + i, tl.load(x_ptr + i, mask=i < n) * 3, mask=i < n)

class ModelNew(torch.nn.Module):
    def forward(self, x):
        a = torch.full_like(x, 7.0)
        b = torch.full_like(x, 7.0)
        n = x.numel()
        double[(triton.cdiv(n, 256),)](x, a, n, BLOCK=256)
        triple[lambda m: (triton.cdiv(n, m["BLOCK"]),)](x, b, n)
        return a, b
'''


def _module():
    path = Path.home() / ".cache" / "leap-gpu-tests" / "compile_pass_candidate.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(CANDIDATE)  # triton.jit needs the source in a file
    import importlib.util

    spec = importlib.util.spec_from_file_location("compile_pass_candidate", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_kernels_compile_without_running_and_autotune_chooses_nothing():
    import torch

    mod = _module()
    model = mod.ModelNew()
    x = torch.randn(5000, device="cuda")
    assert compile_kernels(model, [x])
    assert sum(len(c[0]) for c in mod.double.device_caches.values()) == 1
    assert sum(len(c[0]) for c in mod.triple.fn.device_caches.values()) == 3  # every config compiled
    assert mod.triple.cache == {}  # no config chosen without a benchmark
    a, b = model(x)  # the real launch: kernels ran (the pass left no stale state)
    torch.testing.assert_close(a, x * 2)
    torch.testing.assert_close(b, x * 3)
    assert len(mod.triple.cache) == 1


def test_sandbox_reports_the_compile_stage_and_same_verdicts_with_and_without_it():
    relu = get_builtin("relu_fp32")
    res = {}
    for on in (True, False):
        with Sandbox(SandboxConfig(workers=2, compile_pass=on), device="cuda") as sb:
            res[on] = [sb.verify(relu, getattr(K, k)) for k in ("RELU", "RELU_MASK_OFF_BY_ONE", "RELU_BAD_TRITON")]
    for on, vs in res.items():
        print(on, [(v.status, round(v.stage_seconds.get("child_compile", -1), 3)) for v in vs])
    assert [v.status for v in res[True]] == [v.status for v in res[False]] == ["ok", "incorrect", "compile_error"]
    assert res[True][0].stage_seconds.get("child_compile", 0) > 0
    assert "child_compile" not in res[False][0].stage_seconds
