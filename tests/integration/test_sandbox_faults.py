"""Fault handling: hangs are killed at the timeout (whole process group), crashes become
runtime_error, and the same Sandbox keeps verifying afterwards."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from sandbox_cases import kernels as K

from leap.sandbox import Sandbox, SandboxConfig
from leap.tasks.suite import get_builtin

SPAWNS_AND_HANGS = K.RELU.replace(
    "y = torch.empty_like(x)",
    "import subprocess\n        subprocess.Popen(['sleep', '987654'])\n        while True:\n            pass")


@pytest.fixture(scope="module")
def sb():
    # the gate would reject these candidates before they run; switch it off to test the runtime
    cfg = SandboxConfig(workers=2, prewarm=1, static_gate=False, cpu_run_timeout_s=4.0)
    with Sandbox(cfg, device="cpu") as box:
        yield box


@pytest.fixture(scope="module")
def relu():
    return get_builtin("relu_fp32")


def _sleepers() -> list[str]:
    out = subprocess.run(["pgrep", "-f", "sleep 987654"], capture_output=True, text=True)
    return out.stdout.split()


def test_hang_is_killed_at_timeout_then_next_verifies(sb, relu):
    t0 = time.monotonic()
    v = sb.verify(relu, K.HANG)
    took = time.monotonic() - t0
    assert v.status == "timeout" and "Time limit" in v.feedback
    assert took >= 4.0, took  # not killed before its limit (cpu_run_timeout_s); no upper bound: load varies
    assert sb.verify(relu, K.RELU).status == "ok"


def test_a_correct_kernel_too_slow_for_the_cpu_interpreter_is_not_blamed(sb, relu):
    """A first run finished, and at that pace the planned runs do not fit the time limit: the CPU
    interpreter is slow, the solution not stuck (a correct pooling kernel with small blocks took past 300 s,
    red-team pass 2026-12-05): needs_gpu, unjudged; a hang stays a timeout."""
    slow = K.RELU.replace("y = torch.empty_like(x)", "import time\n        time.sleep(1.5)\n        y = torch.empty_like(x)")
    v = sb.verify(relu, slow)
    assert v.status == "needs_gpu" and "too slowly for the CPU interpreter" in v.feedback, (v.status, v.feedback)
    assert sb.verify(relu, K.HANG).status == "timeout"
    # made slow on purpose, wrong or computed by PyTorch: judged, never left unjudged (a red-team dodge)
    wrong = slow.replace("tl.maximum(x, 0.0)", "tl.minimum(x, 0.0)")  # clean, but the wrong answer
    pytorch = slow.replace("return y", "return torch.relu(x)")
    assert "tl.minimum" in wrong and "return y" in slow and sb.verify(relu, wrong).status == "timeout"
    assert sb.verify(relu, pytorch).status == "timeout"


def test_timeout_kills_the_whole_process_group(sb, relu):
    v = sb.verify(relu, SPAWNS_AND_HANGS)
    assert v.status == "timeout"
    time.sleep(0.3)
    assert _sleepers() == [], "a grandchild survived the timeout"


# the result channel found through gc (the gate refuses that): half a message, or a flood of requests
CHANNEL = ("import gc, os, struct, time\n_conn = next(o for o in gc.get_objects() if type(o).__name__ == "
           "'Connection')\n")
HALF_MESSAGE = CHANNEL + "os.write(_conn.fileno(), struct.pack('!i', 100) + b'{\"type\": \"')\ntime.sleep(3600)\n"
FLOOD = CHANNEL + "for _ in range(100000):\n    _conn.send_bytes(b'{\"type\": \"note\", \"x\": \"' + b'y' * 4000 + b'\"}')\n"


@pytest.mark.parametrize("prefix,statuses", [(HALF_MESSAGE, ("timeout",)), (FLOOD, ("runtime_error", "timeout"))])
def test_a_child_that_abuses_its_result_channel_ends_within_its_time_limit(sb, relu, prefix, statuses):
    """Half a message kept the judge's read waiting past every deadline; a flood of requests grew the
    judge's memory without bound (red-team pass 2026-12-05)."""
    t0 = time.monotonic()
    v = sb.verify(relu, prefix + K.RELU)
    assert v.status in statuses and time.monotonic() - t0 < 60, (v.status, v.feedback)
    assert sb.verify(relu, K.RELU).status == "ok"


@pytest.mark.parametrize("name,why", [("SEGFAULT", "SIGSEGV"), ("EXIT_EARLY", "exit code 3")])
def test_crash_is_runtime_error_and_next_candidate_verifies(sb, relu, name, why):
    v = sb.verify(relu, getattr(K, name))
    assert v.status == "runtime_error" and why in v.feedback
    ok = sb.verify(relu, K.RELU)
    assert ok.status == "ok", ok.feedback


def test_crashes_in_a_batch_do_not_wedge_the_pool(sb, relu):
    pairs = [(relu, K.SEGFAULT), (relu, K.RELU), (relu, K.EXIT_EARLY), (relu, K.RELU)]
    got = dict(sb.verify_many(pairs))
    assert [got[i].status for i in range(4)] == ["runtime_error", "ok", "runtime_error", "ok"]


def test_memory_hog_is_stopped(relu):
    hog = K.RELU.replace("y = torch.empty_like(x)", "junk = torch.empty(1 << 40, dtype=torch.uint8)\n"
                                                    "        y = torch.empty_like(x)")
    with Sandbox(SandboxConfig(workers=1, prewarm=0, static_gate=False, memory_limit_gb=4), device="cpu") as box:
        v = box.verify(relu, hog)
        assert v.status == "runtime_error"
        assert box.verify(relu, K.RELU).status == "ok"


def test_parent_main_script_never_runs_in_a_candidate_process(tmp_path):
    """A user script without a main guard must not be re-imported by the candidate's process."""
    marker = tmp_path / "runs.txt"
    script = tmp_path / "user_script.py"
    script.write_text(
        "import sys\n"
        f"open({str(marker)!r}, 'a').write('ran\\n')\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from sandbox_cases import kernels as K\n"
        "from leap.sandbox import SandboxConfig, verify\n"
        "from leap.tasks.suite import get_builtin\n"
        "v = verify(get_builtin('relu_fp32'), K.RELU, device='cpu', config=SandboxConfig(workers=1, prewarm=1))\n"
        "print(v.status)\n")
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.stdout.strip().splitlines()[-1] == "ok", p.stderr[-2000:]
    assert marker.read_text().count("ran") == 1


JUDGE = """
import sys
sys.path.insert(0, {tests!r})
from sandbox_cases import kernels as K
from leap.sandbox import Sandbox, SandboxConfig
from leap.tasks.suite import get_builtin
src = K.RELU.replace("y = torch.empty_like(x)",
                     "import subprocess\\n        subprocess.Popen(['sleep', '876543'])\\n        while True:\\n            pass")
with Sandbox(SandboxConfig(workers=1, prewarm=0, static_gate=False, cpu_run_timeout_s=600.0), device="cpu") as sb:
    print(sb.verify(get_builtin("relu_fp32"), src).status)
"""


def test_a_candidate_does_not_outlive_a_killed_judge(tmp_path):
    """The judge SIGKILLed (the OOM killer, a trainer's crash) while a candidate spins: its processes end
    with it, not at some later timeout that nothing is left to enforce (red-team pass 2026-12-05)."""
    def sleepers() -> list[str]:
        return subprocess.run(["pgrep", "-f", "sleep 876543"], capture_output=True, text=True).stdout.split()

    def alive(pids: set[int]) -> list[int]:
        out = []
        for p in pids:
            try:
                if Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX":
                    out.append(p)
            except OSError:
                pass
        return out

    script = tmp_path / "judge.py"
    script.write_text(JUDGE.format(tests=str(Path(__file__).parent)))
    judge = subprocess.Popen([sys.executable, str(script)])
    tree: set[int] = set()
    try:
        deadline = time.monotonic() + 180
        while not sleepers() and time.monotonic() < deadline and judge.poll() is None:
            time.sleep(0.5)
        assert sleepers(), "the candidate never started"
        time.sleep(1.0)
        tree = _descendants(judge.pid)
    finally:
        judge.kill()
        judge.wait()
    deadline = time.monotonic() + 20
    while alive(tree) and time.monotonic() < deadline:
        time.sleep(0.5)
    left = alive(tree)
    for p in left:
        subprocess.run(["kill", "-9", str(p)])
    assert len(tree) >= 3 and not left, f"of the judge's processes {sorted(tree)}, {left} outlived it"


def _descendants(root: int) -> set[int]:
    parents = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                parents[int(d.name)] = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [root]
    while todo:
        x = todo.pop()
        kids = [p for p, pp in parents.items() if pp == x and p not in out]
        out.update(kids)
        todo += kids
    return out


FILLS_SCRATCH = K.RELU.replace(
    "y = torch.empty_like(x)",
    "line = 'x' * (1 << 20)\n        try:\n            while True:\n                print(line)\n"
    "        except OSError:\n            pass\n        import time\n        end = time.time() + 6\n"
    "        while time.time() < end:\n            pass\n        y = torch.zeros_like(x)")


def test_a_candidate_that_fills_the_scratch_space_is_blamed_and_its_neighbours_are_not(tmp_path, relu):
    """One candidate filling the shared scratch filesystem (prints) made honest neighbours' outputs unsavable,
    and they got the candidate's runtime_error (red-team pass 2026-12-05): now a neighbour gets a retry and
    at worst sandbox_error, the filler the blame."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m", "tmpfs", str(scratch)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        cfg = SandboxConfig(workers=2, prewarm=0, static_gate=False, scratch_dir=scratch, cpu_run_timeout_s=60.0)
        with Sandbox(cfg, device="cpu") as box:
            got = dict(box.verify_many([(relu, FILLS_SCRATCH), (relu, K.RELU), (relu, K.RELU), (relu, K.RELU)]))
    finally:
        subprocess.run(["umount", "-l", str(scratch)], capture_output=True)
    assert got[0].status != "ok" and got[0].status != "sandbox_error", (got[0].status, got[0].feedback)
    for i in (1, 2, 3):
        assert got[i].status in ("ok", "sandbox_error"), (i, got[i].status, got[i].feedback)
