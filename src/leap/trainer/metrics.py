"""Per-step rollout measures from finished groups: reward and advantage statistics, Acc@turn, tokens,
verdict mix. (DCP counters come from `leap.algorithms.dcp.dcp_step_stats`.)"""

from __future__ import annotations

import math
from collections.abc import Sequence

from leap.algorithms.credit import group_advantages
from leap.algorithms.scalar import trajectory_reward
from leap.evaluation.metrics import acc_at_turn, results_from_groups, status_counts, turns_per_success
from leap.rollout.records import Group
from leap.trainer.config import TrainConfig


def json_safe(value):
    """``value`` with every non-finite float replaced by None (NaN is not JSON); containers recursed."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        return json_safe(value.item())
    return value


def _stats(prefix: str, xs: Sequence[float]) -> dict[str, float]:
    if not xs:
        return {}
    mean = sum(xs) / len(xs)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
    return {f"{prefix}/mean": mean, f"{prefix}/std": std, f"{prefix}/min": min(xs), f"{prefix}/max": max(xs)}


def rollout_metrics(groups: Sequence[Group], cfg: TrainConfig) -> dict[str, float]:
    """Reward (Kevin's scalar score, for a readable curve whatever the advantage), advantages, Acc@turn k,
    turns per success and turn-1 status fractions (all from `leap.evaluation.metrics`), tokens."""
    trajs = [tr for g in groups for tr in g.trajectories]
    if not trajs:
        return {}
    out: dict[str, float] = {}
    out.update(_stats("reward", [trajectory_reward(tr, cfg.reward) for tr in trajs]))
    out.update(_stats("adv", [a for g in groups for a in group_advantages(g, cfg.reward)]))
    results = results_from_groups(groups)
    for k, acc in enumerate(acc_at_turn(results, cfg.rollout.max_turns), 1):
        out[f"acc/turn{k}"] = acc
    tps = turns_per_success(results)
    out["turns_per_success"] = float("nan") if tps is None else tps
    out["turns/mean"] = sum(len(tr.turns) for tr in trajs) / len(trajs)
    out["tokens/completion"] = sum(t.completion_tokens for tr in trajs for t in tr.turns)
    out["tokens/prompt"] = sum(t.prompt_tokens for tr in trajs for t in tr.turns)
    out["tokens/completion_per_turn"] = out["tokens/completion"] / max(1, sum(len(tr.turns) for tr in trajs))
    for status, n in status_counts(results, 1)[0].items():
        out[f"turn1/{status}"] = n / len(trajs)
    out["groups"] = len(groups)
    out["groups/all_solved"] = sum(1 for g in groups if g.n_failed_first_turn() == 0)
    out["groups/all_failed"] = sum(1 for g in groups if g.n_failed_first_turn() == g.size)
    return out
