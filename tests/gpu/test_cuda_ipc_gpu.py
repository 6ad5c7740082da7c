"""Trial tensors by CUDA IPC on a GPU: the probe through the isolated pool passes, verdicts equal those
of the file transport, and the per-candidate cost on a full-size task drops.
Run: pytest -q -s -m gpu tests/gpu/test_cuda_ipc_gpu.py"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.sandbox import Sandbox, SandboxConfig  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402
from leap.tasks.task import parse_task  # noqa: E402

pytestmark = pytest.mark.gpu
CACHE = Path.home() / ".cache" / "leap-gpu-tests"
CASES = ["RELU", "NVRTC_RELU", "RELU_UNWRITTEN_TAIL", "RELU_MASK_OFF_BY_ONE", "RELU_RETURNS_CPU"]


def test_ipc_probe_passes_and_verdicts_match_files():
    relu = get_builtin("relu_fp32")
    odd = parse_task(relu.source.replace("BATCH, DIM = 4096, 16384", "BATCH, DIM = 4095, 16383"), "relu_odd")
    seen = {}
    for transport in ("ipc", "files", "auto"):
        cfg = SandboxConfig(workers=2, cache_dir=CACHE, transport=transport)
        with Sandbox(cfg, device="cuda") as box:
            box.verify(relu, K.RELU)  # warm: reference timings cached, Triton compiled
            got = {}
            for name in CASES:
                v = box.verify(odd if name != "RELU" and name != "NVRTC_RELU" else relu, getattr(K, name))
                got[name] = (v.status, v.stage_seconds.get("total"), v.stage_seconds.get("child_run"))
            seen[transport] = got
            if transport == "auto":
                assert box._sched._ipc_ok.get(0) is True, box._sched.ipc_note
    for t, got in seen.items():
        print(f"\n{t}: " + ", ".join(f"{n} {s} {tot:.2f}s (child run {run})" for n, (s, tot, run) in got.items()))
    assert {n: s for n, (s, _, _) in seen["ipc"].items()} == {n: s for n, (s, _, _) in seen["files"].items()}
    assert seen["ipc"]["RELU"][0] == "ok" and seen["ipc"]["RELU_UNWRITTEN_TAIL"][0] == "incorrect"
    assert seen["ipc"]["RELU"][1] < seen["files"]["RELU"][1]
