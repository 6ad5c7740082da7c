"""KernelBench's results format and scores, from LEAP's verdicts (pure functions).

``eval_results(...)`` gives KernelBench's ``eval_results.json`` layout: ``{problem_id: [entry, ...]}``
with one entry per sample, ``{"sample_id", "compiled", "correctness", "metadata", "runtime",
"runtime_stats"}``. KernelBench evaluates one answer per sample, so the entry is the verdict of one
turn (turn 1 by default, which is what KernelBench's single-shot protocol measures). ``runtime`` is the
mean of the candidate's timed samples in milliseconds, ``runtime_stats`` their mean, std, min, max,
num_trials (and median), as KernelBench writes them (-1.0 and ``{}`` where nothing was timed);
``metadata`` carries LEAP's status, the reference's runtime (a median), the candidate's median
(``runtime_median_ms``: speedups compare medians) and the feedback line.

``kb_scores(...)`` scores such a file the way KernelBench's analysis script does: only sample 0 of each
problem counts; every problem of the set is in the denominator (a problem without an entry counts as
not compiled, not correct); fast_p = share of problems that are correct with speedup
(reference runtime / candidate runtime) > p, for p in (0, 1, 1.5, 2); plus the geometric-mean speedup
over correct samples (0 when none). fast_p is ``None`` when nothing was timed (a CPU run).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence

from leap.sandbox.judge.verdict import Verdict

P_VALUES: tuple[float, ...] = (0.0, 1.0, 1.5, 2.0)
_KB_TASK = re.compile(r"^kb_l(\d+)_(\d+)_")
_NUMBERED = re.compile(r"^(\d+)_")


def problem_id(name: str, position: int) -> int:
    """KernelBench's problem id of a task: the number in ``kb_l1_19_ReLU`` / ``19_ReLU``, else its
    1-based position in the task list."""
    m = _KB_TASK.match(name) or _NUMBERED.match(name)
    if m:
        return int(m.group(m.lastindex or 1))
    return position + 1


def problem_ids(names: Sequence[str]) -> list[int]:
    """The problem ids of one KernelBench level's tasks, in order: each name's number (`problem_id`), or
    every task's 1-based position when those numbers are not distinct (an unnumbered file among numbered
    ones), so that no two tasks ever share an entry of eval_results.json."""
    ids = [problem_id(n, i) for i, n in enumerate(names)]
    return ids if len(set(ids)) == len(ids) else list(range(1, len(names) + 1))


def level_of(name: str) -> int | None:
    """The KernelBench level in a task name (``kb_l2_...`` -> 2), else None."""
    m = _KB_TASK.match(name)
    return int(m.group(1)) if m else None


def split_levels(names: Sequence[str]) -> dict[int | None, list[str]]:
    """Task names grouped by KernelBench level (None: names without one), each group in the given order.
    KernelBench numbers problems per level (level 1 and level 2 both have a problem 19), so one
    eval_results.json holds one level."""
    groups: dict[int | None, list[str]] = {}
    for n in names:
        groups.setdefault(level_of(n), []).append(n)
    return groups


def entry(sample: int, v: Verdict, turn: int) -> dict:
    """One eval_results.json entry for sample ``sample`` from verdict ``v`` (of turn ``turn``)."""
    timed = v.correct and v.runtime_us is not None
    ms = v.runtime_us / 1000.0 if timed else -1.0
    meta: dict = {"leap_status": v.status, "turn": turn, "device": v.device}
    stats: dict = {}
    if timed:
        meta["runtime_median_ms"] = ms  # what LEAP's speedups (and `kb_scores`) use, as the reference's is one
        st = v.runtime_stats
        if st is not None:  # KernelBench's runtime is the mean of its trials, its stats these keys
            ms = st.mean_us / 1000.0
            stats = {"mean": ms, "std": st.std_us / 1000.0, "min": st.min_us / 1000.0, "max": st.max_us / 1000.0,
                     "num_trials": st.samples, "median": st.median_us / 1000.0}
        else:
            stats = {"median": ms}
        stats.update(unit="ms", device=v.device)
    if v.backend:
        meta["backend"] = v.backend
    if v.ref_runtime_us is not None:
        meta["reference_runtime_ms"] = v.ref_runtime_us / 1000.0
    if v.ref_compile_runtime_us is not None:
        meta["reference_compile_runtime_ms"] = v.ref_compile_runtime_us / 1000.0
    if v.speedup_eager is not None:
        meta["speedup_eager"] = v.speedup_eager
    if v.speedup_compile is not None:
        meta["speedup_compile"] = v.speedup_compile
    if not v.correct and v.feedback:
        meta["error"] = v.feedback.splitlines()[0][:300]
    return {"sample_id": sample, "compiled": bool(v.compiled or v.correct), "correctness": bool(v.correct),
            "metadata": meta, "runtime": ms, "runtime_stats": stats}


def eval_results(results: Mapping[str, Sequence[Sequence[Verdict]]], task_order: Sequence[str],
                 turn: int = 1) -> dict[str, list[dict]]:
    """KernelBench's eval_results.json content, keyed by problem id (`problem_ids`, as a string, ascending);
    ``turn`` is 1-based, ``-1`` takes each sample's last turn. ``task_order`` is one level's tasks
    (`split_levels`)."""
    out: dict[int, list[dict]] = {}
    for pid, name in zip(problem_ids(task_order), task_order, strict=True):
        samples = results.get(name)
        if not samples:
            continue
        rows = out.setdefault(pid, [])
        for sid, turns in enumerate(samples):
            if not turns:
                continue
            k = len(turns) if turn == -1 else min(turn, len(turns))
            rows.append(entry(sid, turns[k - 1], k))
    return {str(pid): out[pid] for pid in sorted(out)}


def _speedup(e: Mapping) -> float | None:
    """Reference runtime over the candidate's: medians both (LEAP times the reference by its median), the
    entry's ``runtime`` (a mean, as KernelBench writes it) only where no median was recorded."""
    meta = e.get("metadata") or {}
    ref = meta.get("reference_runtime_ms")
    run = meta.get("runtime_median_ms", e.get("runtime", -1.0))
    if ref is None or run is None or run <= 0:
        return None
    return float(ref) / float(run)


def kb_scores(results_json: Mapping[str, Sequence[Mapping]], problem_ids: Sequence[int]) -> dict:
    """KernelBench's summary of an eval_results.json (see the module docstring) over ``problem_ids``."""
    n = len(problem_ids)
    sample0 = {}
    for pid in problem_ids:
        rows = [e for e in results_json.get(str(pid), []) if int(e.get("sample_id", -1)) == 0]
        sample0[pid] = rows[0] if rows else {"compiled": False, "correctness": False, "runtime": -1.0,
                                             "metadata": {}}
    correct = [e for e in sample0.values() if e.get("correctness")]
    speedups = [s for e in correct if (s := _speedup(e)) is not None]
    timed = bool(speedups) or any((e.get("metadata") or {}).get("device") == "cuda" for e in sample0.values())
    fast = {f"fast_{p:g}": (sum(1 for s in speedups if s > p) / n if n else 0.0) if timed else None
            for p in P_VALUES}
    if timed and speedups and len(speedups) == len(correct):
        geo = math.exp(sum(math.log(s) for s in speedups) / len(speedups))
    else:
        geo = 0.0 if timed and not correct else None
    return {"problems": n, "compiled": sum(1 for e in sample0.values() if e.get("compiled")),
            "correct": len(correct), "compiled_rate": (sum(1 for e in sample0.values() if e.get("compiled")) / n
                                                      if n else 0.0),
            "correct_rate": len(correct) / n if n else 0.0, **fast, "geomean_speedup_correct": geo}
