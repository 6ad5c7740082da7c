"""Baseline scalar reward (Kevin-style): r = correct_weight*correct + speed_weight*speedup, group-normalised.

The speedup term is 0 when the turn is incorrect or untimed (no GPU). A trajectory's reward is the score
of its best turn. Advantages: (r - mean)/(std + eps) ("std", GRPO) or r - mean ("mean", Dr. GRPO).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from leap.algorithms.config import RewardConfig
from leap.rollout.records import Group, Trajectory
from leap.sandbox.judge.verdict import NOT_THE_CANDIDATE, Verdict


def unjudged(traj: Trajectory) -> bool:
    """An unsolved trajectory with a turn the judge could not decide (``needs_gpu``, ``sandbox_error``):
    nothing is known about it, so it gets advantage 0 and takes no part in its group's ranking."""
    return traj.solved_turn is None and any(t.verdict.status in NOT_THE_CANDIDATE for t in traj.turns)


def judged_only(trajs: Sequence[Trajectory], fn) -> list[float]:
    """``fn`` (advantages of a list of trajectories) over the judged ones; 0.0 for the unjudged."""
    keep = [i for i, t in enumerate(trajs) if not unjudged(t)]
    out = [0.0] * len(trajs)
    for i, a in zip(keep, fn([trajs[i] for i in keep]) if keep else [], strict=True):
        out[i] = a
    return out


def turn_score(v: Verdict, cfg: RewardConfig | None = None) -> float:
    """Scalar score s of one verdict."""
    cfg = cfg or RewardConfig()
    if not v.correct:
        return 0.0
    s = v.speedup_eager if cfg.speed_ref == "eager" else v.speedup_compile
    if s is None or not math.isfinite(s):
        s = 0.0
    if cfg.speed_cap is not None:
        s = min(s, cfg.speed_cap)
    return cfg.correct_weight + cfg.speed_weight * s


def trajectory_reward(traj: Trajectory, cfg: RewardConfig | None = None) -> float:
    """The best turn's score (0.0 for an empty trajectory)."""
    return max((turn_score(t.verdict, cfg) for t in traj.turns), default=0.0)


def group_normalize(rewards: Sequence[float], norm: str = "std", eps: float = 1e-6) -> list[float]:
    """Centre on the group mean; with ``norm="std"`` also divide by (population std + eps)."""
    n = len(rewards)
    if n == 0:
        return []
    mean = sum(rewards) / n
    centred = [r - mean for r in rewards]
    if norm == "mean":
        return centred
    if norm != "std":
        raise ValueError(f"norm: expected 'std' or 'mean', got {norm!r}")
    std = math.sqrt(sum(c * c for c in centred) / n)
    return [c / (std + eps) for c in centred]


def scalar_advantages(items: Group | Sequence[Trajectory], cfg: RewardConfig | None = None) -> list[float]:
    """Group-normalised scalar advantages, one per trajectory (0.0 for `unjudged` ones, left out of the
    group's mean and std)."""
    cfg = cfg or RewardConfig()
    trajs = items.trajectories if isinstance(items, Group) else list(items)
    return judged_only(trajs, lambda ts: group_normalize([trajectory_reward(t, cfg) for t in ts], cfg.norm, cfg.eps))


__all__ = ["group_normalize", "judged_only", "scalar_advantages", "trajectory_reward", "turn_score", "unjudged"]
