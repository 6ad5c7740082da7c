"""Difficulty-Conditioned Pruning (DESIGN.md §5): which groups earn feedback turns after turn 1.

Gate: with f = number of samples whose turn 1 is not correct, expand iff t_min <= f <= t_max
(defaults t_min = ceil(G/2), t_max = G - 1). Budget mode (``eval_budget``): among the groups the gate
passes, take them in order of highest p(1-p) (p = turn-1 pass rate) while the worst-case spend fits the
cap. Every turn counts as one sandbox evaluation; expanding a group costs at most
n_continuing * (max_turns - 1) more, where n_continuing = f (or G when solved samples keep optimising).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields

from leap.algorithms.config import DCPConfig
from leap.rollout.records import Group, Trajectory


def thresholds(g: int, cfg: DCPConfig | None = None) -> tuple[int, int]:
    """(t_min, t_max) for a group of size ``g``."""
    cfg = cfg or DCPConfig()
    t_min = math.ceil(g / 2) if cfg.t_min is None else cfg.t_min
    t_max = g - 1 if cfg.t_max is None else cfg.t_max
    return t_min, t_max


def gate(f: int, g: int, cfg: DCPConfig | None = None) -> bool:
    """Does a group of size ``g`` with ``f`` turn-1 failures pass the gate (budget aside)?"""
    cfg = cfg or DCPConfig()
    if not cfg.enabled:
        return f > 0 or (cfg.keep_solved and g > 0)
    t_min, t_max = thresholds(g, cfg)
    return t_min <= f <= t_max


def extra_evals(f: int, g: int, max_turns: int, cfg: DCPConfig | None = None) -> int:
    """Worst-case sandbox evaluations that expanding this group adds after turn 1."""
    cfg = cfg or DCPConfig()
    return (g if cfg.keep_solved else f) * max(max_turns - 1, 0)


def needs_turn(traj: Trajectory, max_turns: int, cfg: DCPConfig | None = None) -> bool:
    """Within an expanded group: does this trajectory get another (feedback) turn?"""
    cfg = cfg or DCPConfig()
    if not traj.turns or len(traj.turns) >= max_turns:
        return False
    return cfg.keep_solved or not traj.solved


def _counts(groups: Sequence[Group]) -> list[tuple[int, int]]:
    return [(g.n_failed_first_turn(), g.size) for g in groups]


def dcp_decide(groups: Sequence[Group], max_turns: int, cfg: DCPConfig | None = None) -> list[bool]:
    """Which groups (each holding at least its turn 1) to expand into feedback turns."""
    cfg = cfg or DCPConfig()
    counts = _counts(groups)
    if max_turns <= 1:
        return [False] * len(groups)
    passed = [gate(f, g, cfg) for f, g in counts]
    if cfg.eval_budget is None:
        return passed
    left = cfg.eval_budget - sum(g for _, g in counts)  # turn 1 is spent regardless

    def priority(i: int) -> tuple[float, int, int]:
        f, g = counts[i]
        p = 1.0 - f / g if g else 0.0
        return (-p * (1.0 - p), extra_evals(f, g, max_turns, cfg), i)

    chosen = [False] * len(groups)
    for i in sorted((i for i, ok in enumerate(passed) if ok), key=priority):
        cost = extra_evals(*counts[i], max_turns, cfg)
        if cost <= left:
            chosen[i], left = True, left - cost
    return chosen


@dataclass
class DCPStats:
    """Running DCP counters (add a step's stats with ``+=``; `as_dict` for logs and checkpoints).

    ``evals_all`` is the counterfactual spend had every group been expanded: actual spend, plus for each
    pruned group its worst case `extra_evals` (each failing sample gets up to max_turns-1 more turns).
    """

    steps: int = 0
    groups_seen: int = 0
    groups_expanded: int = 0
    evals_spent: int = 0
    evals_all: int = 0

    @property
    def evals_saved(self) -> int:
        return self.evals_all - self.evals_spent

    @property
    def expand_rate(self) -> float:
        return self.groups_expanded / self.groups_seen if self.groups_seen else 0.0

    def __iadd__(self, other: DCPStats) -> DCPStats:
        for f in fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))
        return self

    def as_dict(self) -> dict[str, float]:
        return {**asdict(self), "evals_saved": self.evals_saved, "expand_rate": self.expand_rate}

    @classmethod
    def from_dict(cls, d: dict) -> DCPStats:
        return cls(**{f.name: int(d.get(f.name, 0)) for f in fields(cls)})


def dcp_step_stats(groups: Sequence[Group], max_turns: int, cfg: DCPConfig | None = None,
                   expanded: Sequence[bool] | None = None) -> DCPStats:
    """One step's `DCPStats` from finished groups (``expanded`` defaults to each ``group.expanded``)."""
    cfg = cfg or DCPConfig()
    exp = [g.expanded for g in groups] if expanded is None else list(expanded)
    if len(exp) != len(groups):
        raise ValueError(f"expanded: expected {len(groups)} flags, got {len(exp)}")
    spent = sum(len(tr.turns) for g in groups for tr in g.trajectories)
    pruned_extra = sum(extra_evals(f, g, max_turns, cfg)
                       for (f, g), e in zip(_counts(groups), exp, strict=True) if not e)
    return DCPStats(steps=1, groups_seen=len(groups), groups_expanded=sum(map(bool, exp)),
                    evals_spent=spent, evals_all=spent + pruned_extra)


__all__ = ["DCPStats", "dcp_decide", "dcp_step_stats", "extra_evals", "gate", "needs_turn", "thresholds"]
