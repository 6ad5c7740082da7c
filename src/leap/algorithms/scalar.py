"""Baseline scalar reward (Kevin-style): r = correct_weight*correct + speed_weight*speedup, group-normalised.

The speedup term is 0 when the turn is incorrect or untimed (no GPU). A trajectory's reward is the score
of its best turn. Advantages: (r - mean)/(std + eps) ("std", GRPO) or r - mean ("mean", Dr. GRPO).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from leap.algorithms.config import RewardConfig
from leap.rollout.records import Group, Trajectory
from leap.sandbox.verdict import Verdict


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
    """Group-normalised scalar advantages, one per trajectory."""
    cfg = cfg or RewardConfig()
    trajs = items.trajectories if isinstance(items, Group) else list(items)
    return group_normalize([trajectory_reward(t, cfg) for t in trajs], cfg.norm, cfg.eps)


__all__ = ["group_normalize", "scalar_advantages", "trajectory_reward", "turn_score"]
