"""SandboxConfig: protocol defaults, validation, cache dir from the environment."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from leap.sandbox import SandboxConfig
from leap.sandbox.config import default_cache_dir


def test_protocol_defaults():
    cfg = SandboxConfig()
    assert cfg.compile_timeout_s == 180 and cfg.trials >= 5 and cfg.kernel_fraction == 0.5
    assert cfg.timing_samples >= 30 and cfg.tolerances.fp32 == 1e-4
    assert cfg.tolerances.bf16 == 1.6e-2 and cfg.tolerances.fp16 == 1e-2
    assert cfg.isolation and cfg.static_gate


def test_validation_rejects_weak_protocols():
    with pytest.raises(ValidationError):
        SandboxConfig(trials=3)
    with pytest.raises(ValidationError):
        SandboxConfig(kernel_fraction=1.5)
    with pytest.raises(ValidationError):
        SandboxConfig(compile_timeout_s=0)


def test_cache_dir_from_env(monkeypatch, tmp_path):
    monkeypatch.setenv("LEAP_CACHE_DIR", str(tmp_path))
    assert default_cache_dir() == tmp_path and SandboxConfig().cache_dir == tmp_path
    monkeypatch.delenv("LEAP_CACHE_DIR")
    assert default_cache_dir() == Path.home() / ".cache" / "leap"


def test_worker_counts():
    assert SandboxConfig(workers=3).n_workers("cpu") == 3
    assert SandboxConfig().n_workers("cpu") >= 1 and SandboxConfig().n_compile_workers() >= 1
    assert SandboxConfig(gpus=[0, 1]).n_workers("cuda") == 4


def test_drop_uid_reaches_the_childs_isolation_limits():
    from leap.sandbox.scheduler import _limits

    assert _limits(SandboxConfig(drop_uid=65534), "cpu")["drop_uid"] == 65534
    assert _limits(SandboxConfig(), "cuda")["drop_uid"] is None


def test_out_of_memory_failures_are_recognised_for_one_retry():
    from leap.sandbox.pool import ChildOutcome
    from leap.sandbox.scheduler import _out_of_memory

    oom = {"ok": False, "stage": "harness", "error": {"kind": "OutOfMemoryError", "message": "CUDA out of memory."}}
    assert _out_of_memory(ChildOutcome(result=oom))
    assert _out_of_memory(ChildOutcome(result={"ok": False, "error": {"kind": "RuntimeError",
                                                                      "message": "CUDA error: out of memory"}}))
    assert not _out_of_memory(ChildOutcome(result={"ok": False, "error": {"kind": "ValueError", "message": "bad"}}))
    assert not _out_of_memory(ChildOutcome(result={"ok": True}))
    assert not _out_of_memory(ChildOutcome(result=None, timed_out=True))
    assert not _out_of_memory(ChildOutcome(result={"ok": False, "error": "not a dict"}))
