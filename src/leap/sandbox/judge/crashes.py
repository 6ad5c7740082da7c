"""How a child that did not answer normally is judged: a crash or a timeout (`crash_verdict`), a failure on the
judge's side worth one retry (`harness_fault`), a full scratch filesystem (`scratch_full`) and a correct kernel
too slow for the CPU interpreter."""

from __future__ import annotations

import os

from leap.sandbox.judge import verdicts
from leap.sandbox.judge.verdict import Verdict
from leap.sandbox.judge.verifier import sandbox_error

GENERIC_CRASH = "The program crashed while running ({why}). Check memory accesses, bounds and launch sizes."


def crash_verdict(outcome, base: dict, timeout_s: float, compiled: bool, first_correct=None) -> Verdict:
    """``first_correct(path)``: whether the output the child saved after its first run matches trial 0's
    reference (the judge's comparison), for a timeout that may be the CPU interpreter's slowness."""
    if outcome.timed_out and base.get("device") == "cpu" and _too_slow_here(outcome, timeout_s, first_correct):
        return verdicts.needs_gpu(base, compiled=compiled, feedback=(
            f"The solution runs, but too slowly for the CPU interpreter to check within {timeout_s:.0f} s; it needs "
            "a GPU to be judged."), detail="a run took " + str(_first_run(outcome)) + " s")
    if outcome.timed_out:
        return verdicts.timeout(base, compiled=compiled,
                                feedback=f"Time limit exceeded: the solution did not finish within {timeout_s:.0f} s "
                                "(infinite loop, deadlock or far too slow).")
    if getattr(outcome, "misbehaved", False):
        return verdicts.runtime_error(base, compiled=compiled, feedback=GENERIC_CRASH.format(
            why="it wrote into the sandbox's result channel"), detail="malformed or too many messages from the child")
    if getattr(outcome, "server_died", False):  # the forkserver died under this child: the judge's fault
        return sandbox_error("the worker's forkserver died", f"child exit {outcome.exitcode}", base)
    why = outcome.signal_name or (f"exit code {outcome.exitcode}" if outcome.exitcode is not None else "killed")
    if outcome.signal_name == "SIGKILL":  # reached only when it happened again on the retry (reproducible)
        # its cgroup's count says whether its memory cap did it; otherwise a SIGKILL that came back on the
        # retry is still the candidate's (it can kill itself, and a self-kill looks like any other)
        oom = getattr(outcome, "oom_kills", None)
        why = ("killed (SIGKILL) on two runs for exceeding its memory limit" if oom else
               "killed (SIGKILL) on two runs" if oom == 0 else "killed (SIGKILL) on two runs, likely exceeding its "
               "memory limit")
    return verdicts.runtime_error(base, compiled=compiled, feedback=GENERIC_CRASH.format(why=why),
                                  detail=f"child exit {outcome.exitcode} {outcome.signal_name}")


def _first_run(outcome) -> float | None:
    ev = next((e for e in getattr(outcome, "events", []) if isinstance(e, dict) and e.get("type") == "progress"), None)
    run = ev.get("first_run_s") if ev else None
    return float(run) if isinstance(run, int | float) and run > 0 else None


def _too_slow_here(outcome, timeout_s: float, first_correct=None) -> bool:
    """On the CPU a first run finished, clean (nothing the run-time checks object to) and correct (its saved
    output matches trial 0's reference), and the runs planned at that pace do not fit the time limit: the
    interpreter is slow (8x more programs took a correct pooling kernel from 83 s to past 300 s), not the
    solution stuck. A wrong or hacky forward made slow on purpose stays a timeout (red-team pass 2026-12-05)."""
    run, ev = _first_run(outcome), next((e for e in outcome.events if e.get("type") == "progress"), {})
    runs, out = ev.get("runs"), ev.get("out")
    if run is None or not isinstance(runs, int) or run * runs < 0.8 * timeout_s or ev.get("clean") is not True:
        return False
    return first_correct is not None and isinstance(out, str) and first_correct(out) is True


_NO_SPACE = ("No space left on device", "Disk quota exceeded")


def scratch_full(outcome) -> bool | None:
    """None unless the harness could not write the outputs because the scratch filesystem is full; then
    whether the candidate filled it itself (its own directory holds a quarter of the filesystem or more:
    prints, warnings, files) — True — or another candidate did — False (the harness's fault, retried)."""
    res = outcome.result or {}
    err = res.get("error") if isinstance(res.get("error"), dict) else {}
    if res.get("stage") != "output" or not any(w in str(err.get("message", "")) for w in _NO_SPACE):
        return None
    try:
        fs = os.statvfs(outcome.private_dir)
    except OSError:
        return False
    return _usage(outcome.private_dir) * 4 >= fs.f_blocks * fs.f_frsize


def _usage(root: str) -> int:
    """Bytes the files under ``root`` occupy (not following links)."""
    total = 0
    for d, _, files in os.walk(root):
        for f in files:
            try:
                total += os.lstat(os.path.join(d, f)).st_blocks * 512
            except OSError:
                pass
    return total


def harness_fault(outcome, device: str) -> str:
    """Why a child's outcome is the harness's failure and worth one retry ("" when it is not): a dead
    forkserver, the worker SIGKILLed by something other than our timeout, the harness's own exception,
    a CUDA out-of-memory on a GPU shared with other work, or the worker's parent killed under it."""
    res = outcome.result
    if res is None:
        if outcome.timed_out or getattr(outcome, "misbehaved", False):
            return ""
        if getattr(outcome, "server_died", False):
            return "forkserver died"
        return "worker killed (SIGKILL)" if outcome.signal_name == "SIGKILL" else ""
    if res.get("ok"):
        return ""
    if res.get("parent_lost"):
        return "forkserver killed during the run"
    if res.get("stage") == "harness":
        return "harness exception"
    if scratch_full(outcome) is False:
        return "scratch space full (another candidate)"
    err = res.get("error") if isinstance(res.get("error"), dict) else {}
    if device == "cuda" and ("OutOfMemoryError" in str(err.get("kind"))
                             or "out of memory" in str(err.get("message", "")).lower()):
        return "CUDA out of memory"
    return ""


