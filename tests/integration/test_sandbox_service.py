"""`leap sandbox serve` as a real process on loopback (CPU, Triton interpreter): it answers, refuses
without the token, gives the same verdicts as `leap verify`, and `RemoteSandbox` uses it; SIGTERM exits."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from loopback import leap_server
from sandbox_cases import kernels as K

from leap.sandbox import RemoteSandbox
from leap.tasks.suite import get_builtin

SRC = str(Path(__file__).resolve().parents[2] / "src")
TOKEN = "test-token-123"
ENV = {**os.environ, "PYTHONPATH": SRC, "LEAP_SANDBOX_TOKEN": TOKEN}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    with leap_server(["sandbox", "serve", "--device", "cpu", "--workers", "2", "--max-body", "200000"],
                     tmp_path_factory.mktemp("service") / "stderr.log", env=ENV) as (base, proc):
        yield base, proc


def _leap_verify(tmp_path: Path, task: str, source: str) -> dict:
    cand = tmp_path / f"cand_{abs(hash(source))}.py"
    cand.write_text(source)
    r = subprocess.run([sys.executable, "-m", "leap.cli.main", "verify", task, str(cand), "--json",
                        "--device", "cpu"], env=ENV, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-1000:]
    return json.loads(r.stdout)


def test_service_token_verdicts_and_client(service, tmp_path):
    base, _ = service
    body = {"task": "relu_fp32", "candidate": K.RELU}
    assert httpx.post(base + "/verify", json=body, timeout=60).status_code == 401
    r = httpx.post(base + "/verify", json=body, headers={"Authorization": "Bearer wrong"}, timeout=60)
    assert r.status_code == 401 and "token" in r.json()["error"]
    for source, status in ((K.RELU, "ok"), (K.RELU_MASK_OFF_BY_ONE, "incorrect")):
        got = httpx.post(base + "/verify", json={"task": "relu_fp32", "candidate": source}, headers=AUTH,
                         timeout=600)
        assert got.status_code == 200, got.text
        want = _leap_verify(tmp_path, "relu_fp32", source)
        for key in ("status", "correct", "compiled", "backend", "device", "task", "trials"):
            assert got.json()[key] == want[key], (key, got.json()[key], want[key])
        assert got.json()["status"] == status
    # the client: same API as Sandbox, task sent as its record
    relu = get_builtin("relu_fp32")
    with RemoteSandbox(base, token=TOKEN) as sb:
        assert sb.verify(relu, K.RELU).status == "ok"
        out = dict(sb.verify_many([(relu, K.RELU_MASK_OFF_BY_ONE), (relu, K.RELU_SYNTAX_ERROR)]))
        assert out[0].status == "incorrect" and out[1].status != "ok" and not out[1].correct
    with RemoteSandbox(base, token="wrong", retries=1) as sb:
        v = sb.verify(relu, K.RELU)
        assert v.status == "sandbox_error" and "401" in v.detail  # never blamed on the candidate


def test_service_limits_and_sigterm(service):
    base, proc = service
    r = httpx.post(base + "/verify", json={"task": "relu_fp32", "candidate": "x" * 300_000}, headers=AUTH, timeout=30)
    assert r.status_code == 413
    r = httpx.post(base + "/verify", json={"task": "no_such_task", "candidate": K.RELU}, headers=AUTH, timeout=30)
    assert r.status_code == 400 and "task" in r.json()["error"]
    r = httpx.post(base + "/verify", json={"candidate": K.RELU}, headers=AUTH, timeout=30)
    assert r.status_code == 400 and "task" in r.json()["error"]
    assert httpx.get(base + "/health", timeout=10).json()["status"] == "ok"
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
