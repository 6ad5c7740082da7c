"""Judge-side faults: a dead forkserver or a worker killed by something other than our timeout is the
sandbox's failure, retried once and never blamed on the candidate (issue 12 item 4); a restarted
forkserver has the scrubbed environment and the Triton mode of the first start."""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import pytest
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.sandbox.pool.pool import WorkerPool
from leap.tasks.suite import get_builtin

SLOW = K.RELU.replace("y = torch.empty_like(x)", "import time\n        time.sleep(1.0)\n        y = torch.empty_like(x)")
KILLS_FORKSERVER = K.RELU.replace(
    "y = torch.empty_like(x)", "import os, signal\n        os.kill(os.getppid(), signal.SIGKILL)\n"
    "        y = torch.empty_like(x)")


@pytest.fixture(scope="module")
def sb():
    cfg = SandboxConfig(workers=2, prewarm=1, static_gate=False, cpu_run_timeout_s=60.0)
    with Sandbox(cfg, device="cpu") as box:
        yield box


@pytest.fixture(scope="module")
def relu():
    return get_builtin("relu_fp32")


def _pool(sb) -> WorkerPool:
    return sb._sched._executor_for("cpu")


def _environ(pid: int) -> dict[str, str]:
    with open(f"/proc/{pid}/environ", "rb") as f:
        items = [x.decode(errors="replace") for x in f.read().split(b"\0") if x]
    return dict(x.split("=", 1) for x in items if "=" in x)


def test_restarted_forkserver_is_scrubbed_and_keeps_its_triton_mode(sb, relu, monkeypatch):
    pool = _pool(sb)
    old = pool._server.pid
    monkeypatch.setenv("LEAP_TEST_JUDGE_SECRET", "s3cret")
    monkeypatch.delenv("TRITON_INTERPRET", raising=False)  # the judge's own mode differs from the server's
    os.kill(old, signal.SIGKILL)
    time.sleep(0.2)
    v = sb.verify(relu, K.RELU)
    assert v.status == "ok", (v.status, v.feedback, v.detail)
    new = pool._server.pid
    assert new != old and pool._server.starts >= 2
    env = _environ(new)
    assert "LEAP_TEST_JUDGE_SECRET" not in env and env.get("TRITON_INTERPRET") == "1"


def test_candidate_that_kills_its_forkserver_gets_no_ok_and_later_ones_are_unaffected(sb, relu):
    v = sb.verify(relu, KILLS_FORKSERVER)
    assert v.status in ("rejected", "runtime_error"), (v.status, v.feedback, v.detail)
    after = [sb.verify(relu, K.RELU) for _ in range(2)]
    assert [a.status for a in after] == ["ok", "ok"], [(a.status, a.detail) for a in after]


def test_killing_the_forkserver_and_a_worker_mid_batch_keeps_every_verdict_right(sb, relu):
    pool = _pool(sb)
    sources = [SLOW, SLOW, K.RELU_PY_ERROR, SLOW, K.RELU, K.RELU_MUTATES_INPUT, K.RELU]
    expect = ["ok", "ok", "runtime_error", "ok", "ok", "incorrect", "ok"]
    killed: dict[str, int] = {}

    def saboteur():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not pool._live:
            time.sleep(0.02)
        time.sleep(0.3)  # the worker is inside the candidate's forward
        live = sorted(pool._live)
        if live:
            os.kill(live[0], signal.SIGKILL)
            killed["worker"] = live[0]
        os.kill(pool._server.pid, signal.SIGKILL)
        killed["server"] = 1

    t = threading.Thread(target=saboteur)
    t.start()
    got = dict(sb.verify_many([(relu, s) for s in sources]))
    t.join()
    assert killed.get("worker") and killed.get("server")
    statuses = [got[i].status for i in range(len(sources))]
    for want, v in zip(expect, (got[i] for i in range(len(sources))), strict=True):
        # a fault may make one verdict sandbox_error (the retry failed too), never a wrong verdict
        assert v.status in (want, "sandbox_error"), (statuses, v.feedback, v.detail)
    assert statuses.count("sandbox_error") <= 2, statuses
    assert sb.verify(relu, K.RELU).status == "ok"


FD_PROBE = K.RELU.replace(
    "y = torch.empty_like(x)", "import os\n        links = []\n        for f in os.listdir('/proc/self/fd'):\n"
    "            try:\n                links.append(f + ':' + os.readlink('/proc/self/fd/' + f))\n"
    "            except OSError:\n                pass\n"
    "        raise RuntimeError('FDS ' + ' '.join(x for x in links if int(x.split(':')[0]) > 2))\n"
    "        y = torch.empty_like(x)")
WRITES_ALIVE_PIPE = K.RELU_PY_ERROR.replace(
    "def forward(self, x):", "def forward(self, x):\n        import os\n        for fd in range(3, 64):\n"
    "            try:\n                os.write(fd, b'x')\n            except OSError:\n                pass\n", 1)


def test_a_child_holds_no_descriptor_of_the_forkserver_or_the_resource_tracker(sb, relu):
    """multiprocessing hands each forkserver child the server's alive pipe and the resource tracker's pipe:
    a byte written to the first kills the server (every child of it then dies a "server death", not the
    candidate's fault), a registration sent to the second makes the judge's tracker unlink a host name."""
    v = sb.verify(relu, FD_PROBE)
    assert v.status == "runtime_error", (v.status, v.feedback)
    listed = re.search(r"RuntimeError: FDS ?(.*)", v.feedback).group(1).split()
    others = [f for f in listed if not f.endswith(":/dev/null")]
    assert len(others) == 1 and "socket:" in others[0], listed  # the job channel alone
    server = _pool(sb)._server.pid
    v = sb.verify(relu, WRITES_ALIVE_PIPE)
    assert v.status == "runtime_error", (v.status, v.feedback, v.detail)
    assert _pool(sb)._server.pid == server and sb.verify(relu, K.RELU).status == "ok"
