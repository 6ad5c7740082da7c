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
    from leap.sandbox.judge.scheduler import _limits

    assert _limits(SandboxConfig(drop_uid=65534), "cpu").drop_uid == 65534
    assert _limits(SandboxConfig(drop_uid=None), "cuda").drop_uid is None
    assert SandboxConfig().drop_uid == 65534  # unprivileged by default (falls back, with a reason, where it cannot)


def test_harness_faults_are_recognised_for_one_retry():
    from leap.sandbox.judge.crashes import harness_fault
    from leap.sandbox.pool.pool import ChildOutcome

    oom = {"ok": False, "stage": "run", "error": {"kind": "OutOfMemoryError", "message": "CUDA out of memory."}}
    assert harness_fault(ChildOutcome(result=oom), "cuda") == "CUDA out of memory"
    assert harness_fault(ChildOutcome(result={"ok": False, "error": {"kind": "RuntimeError",
                                                                     "message": "CUDA error: out of memory"}}), "cuda")
    assert not harness_fault(ChildOutcome(result=oom), "cpu")
    assert harness_fault(ChildOutcome(result={"ok": False, "stage": "harness", "error": {}}), "cpu")
    assert harness_fault(ChildOutcome(result={"ok": False, "stage": "rejected", "parent_lost": True}), "cpu")
    assert harness_fault(ChildOutcome(result=None, signal_name="SIGKILL", exitcode=-9), "cpu")
    assert harness_fault(ChildOutcome(result=None, exitcode=255, server_died=True), "cpu")
    assert not harness_fault(ChildOutcome(result=None, signal_name="SIGSEGV", exitcode=-11), "cpu")
    assert not harness_fault(ChildOutcome(result={"ok": False, "error": {"kind": "ValueError", "message": "bad"}}), "cuda")
    assert not harness_fault(ChildOutcome(result={"ok": True}), "cuda")
    assert not harness_fault(ChildOutcome(result=None, timed_out=True, signal_name="SIGKILL"), "cpu")
    assert not harness_fault(ChildOutcome(result={"ok": False, "error": "not a dict"}), "cuda")
    assert not harness_fault(ChildOutcome(result=None, signal_name="SIGKILL", misbehaved=True), "cpu")


def test_sandbox_error_and_needs_gpu_verdicts():
    from leap.sandbox.judge import crashes as C
    from leap.sandbox.judge import verifier as V
    from leap.sandbox.pool.pool import ChildOutcome

    base = {"task": "t", "device": "cpu"}
    assert V.harness_error(RuntimeError("boom"), base).status == "sandbox_error"
    assert V.verdict_from_failure({"stage": "harness", "error": {"kind": "RuntimeError"}}, base).status == "sandbox_error"
    after = {"stage": "after_candidate", "error": {"kind": "TypeError", "message": "x"}}
    assert V.verdict_from_failure(after, base).status == "runtime_error"
    cuda = {"stage": "run", "error": {"kind": "AssertionError", "message": "Torch not compiled with CUDA enabled",
                                      "origin": "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py"}}
    v = V.verdict_from_failure(cuda, base)
    assert v.status == "needs_gpu" and "GPU" in v.feedback
    for origin in ("/tmp/leap-cand-1/candidate.py", "candidate", ""):  # the same words from the candidate's code
        forged = {"stage": "run", "error": {**cuda["error"], "origin": origin}}
        assert V.verdict_from_failure(forged, base).status == "runtime_error", origin
    assert V.verdict_from_failure(cuda, {**base, "device": "cuda"}).status == "runtime_error"
    assert C.crash_verdict(ChildOutcome(exitcode=255, server_died=True), base, 5, True).status == "sandbox_error"
    killed = C.crash_verdict(ChildOutcome(exitcode=-9, signal_name="SIGKILL"), base, 5, True)
    assert killed.status == "runtime_error" and "two runs" in killed.feedback
    # its cgroup's own count names the memory cap; a reproducible SIGKILL without it is still the candidate's
    oom = C.crash_verdict(ChildOutcome(exitcode=-9, signal_name="SIGKILL", oom_kills=1), base, 5, True)
    assert oom.status == "runtime_error" and "for exceeding its memory limit" in oom.feedback
    other = C.crash_verdict(ChildOutcome(exitcode=-9, signal_name="SIGKILL", oom_kills=0), base, 5, True)
    assert other.status == "runtime_error" and "memory" not in other.feedback.split("(")[1]
    channel = C.crash_verdict(ChildOutcome(exitcode=-9, signal_name="SIGKILL", oom_kills=0, misbehaved=True), base, 5,
                              True)
    assert channel.status == "runtime_error" and "result channel" in channel.feedback
