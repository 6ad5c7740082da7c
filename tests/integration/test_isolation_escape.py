"""Escapes from the candidate's process, tried for real through the sandbox (static gate off, so the
isolation layers alone must hold): a double-forked setsid daemon that leaves for the root cgroup dies
with its candidate and cannot rewrite a later candidate's outputs; the judge's environment and the
other processes' /proc entries are out of sight; the project's source tree is read-only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leap.sandbox.pool.isolation import IsolationLimits, probe_isolation

SRC = Path(__file__).resolve().parents[2] / "src"
MARK = b"leapdaemon"
TRITON_HEAD = """
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, y_ptr, n, ZERO: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m)
    tl.store(y_ptr + offs, tl.maximum(x, 0.0) * (1 - ZERO), mask=m)

"""
MODEL = """

class ModelNew(nn.Module):
    def forward(self, x):
        y = torch.empty_like(x)
        k[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), ZERO={zero}, BLOCK=1024)
        return y
"""
RELU = MODEL.format(zero=0)
ZEROS = TRITON_HEAD + MODEL.format(zero=1)
# at import: fork, setsid, fork; the grandchild names itself, leaves for the root cgroup and for a minute
# rewrites every candidate output it can find (scratch roots, other processes' /proc/<pid>/root) with the
# right answer for that candidate's inputs
DAEMON = '''
import ctypes, glob, os, time
import torch

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        ctypes.CDLL(None).prctl(15, b"leapdaemon", 0, 0, 0)
        for f in ("/sys/fs/cgroup/cgroup.procs", "/sys/fs/cgroup/pids/cgroup.procs",
                  "/sys/fs/cgroup/memory/cgroup.procs"):
            try:
                open(f, "w").write(str(os.getpid()))
            except OSError:
                pass
        end = time.time() + 60
        while time.time() < end:
            roots = ["/dev/shm", "/tmp", *glob.glob("/proc/[0-9]*/root/dev/shm"), *glob.glob("/proc/[0-9]*/root/tmp")]
            for r in roots:
                for out in glob.glob(r + "/**/out/t*_r*.pt", recursive=True):
                    try:
                        i = os.path.basename(out)[1:].split("_")[0]
                        x = torch.load(os.path.join(os.path.dirname(os.path.dirname(out)), "in", f"t{i}.pt"))[0]
                        torch.save(x.clamp(min=0), out)
                    except Exception:
                        pass
            time.sleep(0.005)
        os._exit(0)
    os._exit(0)
''' + TRITON_HEAD + RELU


def _layers() -> dict:
    return probe_isolation(IsolationLimits()).layers


def _need(*names):
    layers = _layers()
    bad = {n: layers.get(n) for n in names if layers.get(n) != "ok"}
    if bad:
        pytest.skip(f"isolation layers unavailable on this machine: {bad}")


def _daemons() -> list[int]:
    out = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and Path(f"/proc/{pid}/comm").read_bytes().strip() == MARK:
                out.append(int(pid))
        except OSError:
            continue
    return out


def test_setsid_daemon_in_root_cgroup_dies_with_its_candidate_and_cannot_fix_later_outputs():
    _need("pid")
    from leap.sandbox import Sandbox, SandboxConfig
    from leap.tasks.suite import get_builtin

    relu = get_builtin("relu_fp32")
    cfg = SandboxConfig(workers=1, static_gate=False)
    try:
        with Sandbox(cfg, device="cpu") as box:
            verdicts = dict(box.verify_many([(relu, DAEMON), (relu, ZEROS), (relu, ZEROS)], device="cpu"))
            alive_after = _daemons()
    finally:
        for pid in _daemons():
            os.kill(pid, 9)
    assert verdicts[0].status in ("ok", "rejected"), verdicts[0].feedback  # rejected: a detector saw the process
    assert [verdicts[1].status, verdicts[2].status] == ["incorrect", "incorrect"], [verdicts[i].feedback
                                                                                    for i in (1, 2)]
    assert alive_after == []


PROBE = '''
import glob, os
import leap

secret = os.environ.get("X_PROBE_WORD", "LEAPJUDGESECRET")
leaks = []
for p in glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline"):
    try:
        if b"LEAPJUDGESECRET" in open(p, "rb").read():
            leaks.append(p)
    except OSError:
        pass
pids = [p for p in os.listdir("/proc") if p.isdigit()]
if len(pids) > 3:
    leaks.append(f"{len(pids)} processes visible")
for p in glob.glob("/proc/[0-9]*/root/*/*/leap-pool-*/leap-cand-*") + glob.glob("/proc/[0-9]*/root/tmp/*/leap-cand-*"):
    if os.path.basename(p) != os.path.basename(os.getcwd()):  # another candidate's private dir
        leaks.append(p)
try:
    open(f"/proc/{os.getppid()}/environ", "rb").read()
    leaks.append("parent environ readable")
except OSError:
    pass
src = os.path.dirname(leap.__file__)
for target in (os.path.join(src, "__init__.py"), os.path.join(src, "planted_by_candidate.py")):
    try:
        with open(target, "a") as f:
            f.write("# planted\\n")
        leaks.append("wrote " + target)
    except OSError:
        pass
if leaks:
    raise RuntimeError("LEAK " + "; ".join(leaks[:5]))
''' + TRITON_HEAD + RELU

JUDGE = '''
import json, sys
from leap.sandbox import Sandbox, SandboxConfig
from leap.tasks.suite import get_builtin
with Sandbox(SandboxConfig(workers=1, static_gate=False), device="cpu") as box:
    v = box.verify(get_builtin("relu_fp32"), open(sys.argv[1]).read())
print(json.dumps({"status": v.status, "feedback": v.feedback, "detail": v.detail}))
'''


def test_judge_environment_other_processes_and_source_tree_out_of_reach(tmp_path):
    _need("pid", "proc_view", "mounts")
    cand = tmp_path / "probe.py"
    cand.write_text(PROBE)
    init = SRC / "leap" / "__init__.py"
    before = init.read_bytes()
    env = {**os.environ, "PYTHONPATH": str(SRC), "TRITON_INTERPRET": "1",
           "LEAP_TEST_JUDGE_TOKEN": "LEAPJUDGESECRET-123"}  # in the judge's exec-time environment
    res = subprocess.run([sys.executable, "-c", JUDGE, str(cand)], env=env, capture_output=True, text=True,
                         timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    v = json.loads(res.stdout.strip().splitlines()[-1])
    assert init.read_bytes() == before and not (SRC / "leap" / "planted_by_candidate.py").exists()
    assert v["status"] == "ok", v["feedback"] + v["detail"]


def test_the_probe_candidate_does_find_leaks_without_the_layers(tmp_path):
    """Control: the same probe, run as a plain process next to a judge-like process that holds the
    secret, reports the leak (so the test above can fail)."""
    holder = subprocess.Popen(["sleep", "30"], env={"LEAP_TEST_JUDGE_TOKEN": "LEAPJUDGESECRET-123"})
    try:
        time.sleep(0.2)
        fake = f"import types\nleap = types.SimpleNamespace(__file__={str(tmp_path / 'x.py')!r})"
        code = PROBE.replace("import leap", fake).split("import torch.nn")[0]
        res = subprocess.run([sys.executable, "-c", code],
                             capture_output=True, text=True, timeout=60)
    finally:
        holder.kill()
        holder.wait()
    assert "LEAK" in res.stderr and "environ" in res.stderr, res.stderr[-2000:]
