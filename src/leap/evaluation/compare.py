"""Is one evaluation better than another? Acc@turn of two runs on the same tasks, their difference and a
bootstrap confidence interval of it, as pure functions (`leap compare` writes them out).

The interval resamples at both levels that vary: the tasks (with replacement, the same draw for both runs,
since a task's difficulty is shared) and, inside each drawn task, each run's own samples (with replacement),
so a difference carried by a few lucky samples on a few tasks gets a wide interval. Accuracy per task is
the fraction of its judged samples solved by the turn, averaged over tasks as in `leap.evaluation.metrics`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from leap.evaluation.metrics import Results, judged, solved_turn


class CompareError(ValueError):
    """Two evaluations that cannot be compared (one line)."""


@dataclass(frozen=True)
class TurnComparison:
    """Acc@turn of runs A and B over their common tasks, B - A and its bootstrap interval."""

    turn: int
    tasks: int
    acc_a: float
    acc_b: float
    diff: float
    ci_low: float
    ci_high: float

    @property
    def excludes_zero(self) -> bool:
        return self.ci_low > 0 or self.ci_high < 0


def solved_by(results: Results, turn: int) -> dict[str, list[bool]]:
    """Per judged task: for each judged sample, was it solved by ``turn``?"""
    return {t: [(k := solved_turn(s)) is not None and k <= turn for s in samples]
            for t, samples in judged(results).items()}


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def compare_turn(a: Mapping[str, Sequence[bool]], b: Mapping[str, Sequence[bool]], turn: int, *,
                 boot: int = 10000, level: float = 0.95, seed: int = 0) -> TurnComparison:
    """Compare two runs' per-task solved flags on the tasks both judged (`CompareError` when none)."""
    tasks = sorted(set(a) & set(b))
    if not tasks:
        raise CompareError("the two evaluations share no judged task")
    acc_a = _mean([_mean(a[t]) for t in tasks])
    acc_b = _mean([_mean(b[t]) for t in tasks])
    rng = random.Random(seed)
    diffs = []
    for _ in range(boot):
        draw = [tasks[rng.randrange(len(tasks))] for _ in tasks]
        da = [_mean(rng.choices(a[t], k=len(a[t]))) for t in draw]
        db = [_mean(rng.choices(b[t], k=len(b[t]))) for t in draw]
        diffs.append(_mean(db) - _mean(da))
    diffs.sort()
    lo = diffs[int((1 - level) / 2 * (boot - 1))]
    hi = diffs[int((1 + level) / 2 * (boot - 1))]
    return TurnComparison(turn, len(tasks), acc_a, acc_b, acc_b - acc_a, lo, hi)


def compare_results(a: Results, b: Results, turns: int, *, boot: int = 10000, level: float = 0.95,
                    seed: int = 0) -> list[TurnComparison]:
    """`compare_turn` for turns 1..``turns``."""
    return [compare_turn(solved_by(a, k), solved_by(b, k), k, boot=boot, level=level, seed=seed + k)
            for k in range(1, turns + 1)]


def only_in_one(a: Results, b: Results) -> tuple[list[str], list[str]]:
    """Judged tasks of A missing from B, and of B missing from A (left out of the comparison)."""
    ja, jb = set(judged(a)), set(judged(b))
    return sorted(ja - jb), sorted(jb - ja)
