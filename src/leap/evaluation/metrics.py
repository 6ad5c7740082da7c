"""Evaluation measures (DESIGN.md §6) as pure functions.

The one home of Acc@turn, turns per success and status counts, used by `leap eval`, the trainer's
per-step metrics (`leap.trainer.metrics`) and the demo (`results_from_groups` turns rollout groups
into the same input).

Input everywhere: ``results: dict[task, list[list[Verdict]]]`` — per task, per sample, the verdicts of
its turns in order. Definition (per task): a per-task value is averaged over that task's samples, then
over tasks, so a task with more samples does not weigh more (with G samples per task, as in training,
this equals the per-sample fraction). Speed measures are ``None`` when nothing was timed (CPU runs).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import comb

from leap.rollout.episode import NO_CODE_FEEDBACK
from leap.sandbox.judge.verdict import NOT_THE_CANDIDATE, Verdict

Results = Mapping[str, Sequence[Sequence[Verdict]]]


def results_from_groups(groups) -> dict[str, list[list[Verdict]]]:
    """`Results` of rollout `Group`s (a task drawn twice in one step counts as two tasks)."""
    return {f"{i}:{g.task}": [[t.verdict for t in tr.turns] for tr in g.trajectories]
            for i, g in enumerate(groups)}


def solved_turn(verdicts: Sequence[Verdict]) -> int | None:
    """1-based turn of the first correct verdict, or None."""
    return next((i + 1 for i, v in enumerate(verdicts) if v.correct), None)


def _task_mean(results: Results, per_sample) -> float:
    vals = [sum(per_sample(s) for s in samples) / len(samples) for samples in results.values() if samples]
    return sum(vals) / len(vals) if vals else 0.0


def acc_at_turn(results: Results, max_turns: int) -> list[float]:
    """Entry k-1: fraction of tasks solved by turn k (expected over samples)."""
    return [_task_mean(results, lambda s, k=k: (t := solved_turn(s)) is not None and t <= k)
            for k in range(1, max_turns + 1)]


def best_speedup(verdicts: Sequence[Verdict], key: str = "eager") -> float | None:
    """The best speedup among a sample's correct, timed turns."""
    attr = "speedup_eager" if key == "eager" else "speedup_compile"
    vals = [getattr(v, attr) for v in verdicts if v.correct and getattr(v, attr) is not None]
    return max(vals) if vals else None


def any_timed(results: Results, key: str = "eager") -> bool:
    """Did the run time candidates: a speedup was measured, or the sandbox ran on a GPU (where correct
    candidates are timed; with none correct the speed measures are 0, not unknown)."""
    attr = "speedup_eager" if key == "eager" else "speedup_compile"
    return any(getattr(v, attr) is not None or getattr(v, "device", None) == "cuda"
               for samples in results.values() for s in samples for v in s)


def fast_p(results: Results, p: float, key: str = "eager") -> float | None:
    """Fraction of tasks solved correctly with speedup > p (vs ``eager`` or ``compile``); None if untimed."""
    if not any_timed(results, key):
        return None
    return _task_mean(results, lambda s: (b := best_speedup(s, key)) is not None and b > p)


def pass_at_k(n: int, c: int, k: int) -> float:
    """Unbiased pass@k from n samples with c correct: 1 - C(n-c, k) / C(n, k)."""
    if not 0 <= c <= n or k < 1:
        raise ValueError(f"pass_at_k: need 0 <= c <= n and k >= 1 (n={n}, c={c}, k={k})")
    if k > n:
        raise ValueError(f"pass_at_k: k={k} exceeds the number of samples n={n}")
    if n - c < k:
        return 1.0
    return 1.0 - comb(n - c, k) / comb(n, k)


def pass_at_ks(results: Results, ks: Sequence[int] | None = None) -> dict[str, float]:
    """Mean unbiased pass@k over tasks (a sample passes if any of its turns is correct), for k <= min n."""
    ns = [len(s) for s in results.values() if s]
    if not ns:
        return {}
    n_min = min(ns)
    ks = ks or sorted({1, n_min} | {k for k in (2, 4, 8, 16, 32) if k <= n_min})
    out = {}
    for k in ks:
        if k > n_min:
            continue
        vals = [pass_at_k(len(s), sum(solved_turn(x) is not None for x in s), k) for s in results.values() if s]
        out[str(k)] = sum(vals) / len(vals)
    return out


def turns_per_success(results: Results) -> float | None:
    """Mean turn at which solved samples were first correct (None if nothing was solved)."""
    turns = [t for samples in results.values() for s in samples if (t := solved_turn(s)) is not None]
    return sum(turns) / len(turns) if turns else None


def sandbox_evals(results: Results) -> int:
    """Candidates that went to the sandbox (answers without code are not evaluated)."""
    return sum(1 for samples in results.values() for s in samples for v in s
               if not (v.status == "format_error" and v.feedback == NO_CODE_FEEDBACK))


def status_counts(results: Results, max_turns: int) -> list[dict[str, int]]:
    """Per turn, how many verdicts had each status."""
    out: list[dict[str, int]] = [{} for _ in range(max_turns)]
    for samples in results.values():
        for s in samples:
            for i, v in enumerate(s[:max_turns]):
                out[i][v.status] = out[i].get(v.status, 0) + 1
    return out


def unjudged(verdicts: Sequence[Verdict]) -> bool:
    """An unsolved sample with a turn the judge could not decide (``needs_gpu``/``sandbox_error``)."""
    return solved_turn(verdicts) is None and any(v.status in NOT_THE_CANDIDATE for v in verdicts)


def judged(results: Results) -> dict[str, list[Sequence[Verdict]]]:
    """The results without `unjudged` samples (a task left with none drops out of the denominator)."""
    out = {t: [s for s in samples if not unjudged(s)] for t, samples in results.items()}
    return {t: s for t, s in out.items() if s}


def summarize(results: Results, max_turns: int) -> dict:
    """The summary.json fields. Accuracy and speed measures count only judged samples; the unjudged ones
    (the judge had no GPU, or failed itself) are counted separately."""
    every, results = results, judged(results)
    return {
        "tasks": len(every),
        "samples": sum(len(s) for s in every.values()),
        "judged_tasks": len(results),
        "unjudged_samples": sum(unjudged(s) for samples in every.values() for s in samples),
        "max_turns": max_turns,
        "acc_at_turn": acc_at_turn(results, max_turns),
        "fast_1_eager": fast_p(results, 1.0, "eager"),
        "fast_1_compile": fast_p(results, 1.0, "compile"),
        "fast_1.2_eager": fast_p(results, 1.2, "eager"),
        "pass_at_k": pass_at_ks(results),
        "turns_per_success": turns_per_success(results),
        "sandbox_evals": sandbox_evals(every),
        "status_by_turn": status_counts(every, max_turns),
    }
