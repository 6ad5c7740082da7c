"""A process the candidate starts in a new session (so outside the child's process group) is killed with
the child: the pool also kills what is left in the child's cgroup."""

from __future__ import annotations

import os
import time

import pytest

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge import verifier as V
from leap.tasks.suite import get_builtin

MARK = "1234.5678"
DAEMON = f'''
import subprocess
import torch
import torch.nn as nn

subprocess.Popen(["sleep", "{MARK}"], start_new_session=True, stdout=subprocess.DEVNULL,
                 stderr=subprocess.DEVNULL)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
'''


def _sleepers() -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    if f.read().split(b"\0")[:2] == [b"sleep", MARK.encode()]:
                        out.append(int(pid))
            except OSError:
                continue
    return out


def test_a_daemon_started_in_a_new_session_dies_with_the_child(tmp_path):
    from leap.sandbox.pool.pool import WorkerPool

    relu = get_builtin("relu_fp32")
    prep = V.prepare(relu, "cpu", SandboxConfig(), None)
    pool = WorkerPool(tmp_path, prewarm=0, interpret=True)
    try:
        job = {"type": "check", "backend": "triton", "source": DAEMON, "device": "cpu", "init_seed": V.INIT_SEED,
               "poison_rechecks": 0, "poison_bytes": 0, "isolation": True, "limits": {"memory_bytes": None}}
        out = pool.run(job, 120, prepare=lambda d: V.write_inputs(prep, d))
    finally:
        pool.close()
    layers = (out.result or {}).get("isolation") or {}
    if layers.get("cgroup") != "ok":
        for pid in _sleepers():
            os.kill(pid, 9)
        pytest.skip(f"no per-candidate cgroup on this machine ({layers.get('cgroup')})")
    time.sleep(0.2)
    assert _sleepers() == []
