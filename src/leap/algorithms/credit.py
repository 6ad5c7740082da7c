"""Turn credit: one advantage per turn of every trajectory (each turn is a training sample).

* ``leap``: trajectory advantages A_i from the reward (tournament or scalar); if A_i > 0, turn t gets
  A_i * gamma^|T* - t| where T* is the turn that decided the outcome (the solving turn; for an unsolved
  sample the first turn reaching its best status), else every turn gets A_i.
* ``kevin``: per-turn returns R_t = sum_{k>=t} gamma^(k-t) s_k (s = scalar turn score), normalised over
  all turns of the group (Kevin's recipe; peers with many turns weigh more in the baseline).
* ``loo_turn``: the same returns with a leave-one-out baseline per (group, turn index): the mean return
  of the *other* trajectories that reached turn t (nearest earlier index with peers if none; 0 for G=1).

``kevin`` and ``loo_turn`` score turns with the scalar reward settings (``RewardConfig.correct_weight``
etc.) whatever ``RewardConfig.kind`` is. With ``traj_norm`` each credit is divided by the trajectory's
turn count, so every trajectory carries the same total weight however many turns it took.
"""

from __future__ import annotations

from collections.abc import Sequence

from leap.algorithms.config import CreditConfig, RewardConfig
from leap.algorithms.scalar import group_normalize, scalar_advantages, turn_score, unjudged
from leap.algorithms.tournament import outcome, tournament_advantages
from leap.rollout.records import Group, Trajectory

Credits = list[list[float]]  # credits[i][t]: trajectory i, turn t (0-based)


def group_advantages(group: Group, reward: RewardConfig | None = None) -> list[float]:
    """Trajectory-level advantages: the tournament or the group-normalised scalar reward."""
    reward = reward or RewardConfig()
    if reward.kind == "tournament":
        return tournament_advantages(group, reward)
    return scalar_advantages(group, reward)


def leap_turn_credit(traj: Trajectory, a: float, gamma: float, decisive: int | None = None) -> list[float]:
    """LEAP rule for one trajectory with advantage ``a``; ``decisive`` is the 1-based turn T*."""
    n = len(traj.turns)
    if a <= 0:
        return [a] * n
    t_star = decisive if decisive else (outcome(traj).turn or n)
    return [a * gamma ** abs(t_star - (t + 1)) for t in range(n)]


def turn_returns(traj: Trajectory, gamma: float, reward: RewardConfig | None = None) -> list[float]:
    """R_t = sum_{k>=t} gamma^(k-t) * s_k over the trajectory's turns."""
    out: list[float] = []
    acc = 0.0
    for t in reversed(traj.turns):
        acc = turn_score(t.verdict, reward) + gamma * acc
        out.append(acc)
    return out[::-1]


def kevin_credits(group: Group, credit: CreditConfig, reward: RewardConfig | None = None) -> Credits:
    """Returns normalised over every turn of the group (pooled mean/std, or mean only)."""
    reward = reward or RewardConfig()
    rets = [turn_returns(tr, credit.gamma, reward) for tr in group.trajectories]
    flat = group_normalize([r for rs in rets for r in rs], reward.norm, reward.eps)
    out, k = [], 0
    for rs in rets:
        out.append(flat[k:k + len(rs)])
        k += len(rs)
    return out


def loo_turn_credits(group: Group, credit: CreditConfig, reward: RewardConfig | None = None) -> Credits:
    """Returns minus the leave-one-out mean of peers' returns at the same turn index."""
    rets = [turn_returns(tr, credit.gamma, reward) for tr in group.trajectories]
    out: Credits = []
    for i, rs in enumerate(rets):
        row = []
        for t, r in enumerate(rs):
            base = 0.0
            for u in range(t, -1, -1):  # nearest index (at or before t) that some peer reached
                peers = [p[u] for j, p in enumerate(rets) if j != i and len(p) > u]
                if peers:
                    base = sum(peers) / len(peers)
                    break
            row.append(r - base)
        out.append(row)
    return out


def group_credits(group: Group, reward: RewardConfig | None = None,
                  credit: CreditConfig | None = None) -> Credits:
    """Per-turn credits of a finished group: ``credits[i][t]`` for trajectory i, turn t."""
    reward, credit = reward or RewardConfig(), credit or CreditConfig()
    if any(unjudged(tr) for tr in group.trajectories):  # the judge could not decide them: credit 0, left out
        keep = [i for i, tr in enumerate(group.trajectories) if not unjudged(tr)]
        sub = group_credits(group.model_copy(update={"trajectories": [group.trajectories[i] for i in keep]}),
                            reward, credit) if keep else []
        out = [[0.0] * len(tr.turns) for tr in group.trajectories]
        for i, row in zip(keep, sub, strict=True):
            out[i] = row
        return out
    if credit.kind == "leap":
        adv = group_advantages(group, reward)
        out = [leap_turn_credit(tr, a, credit.gamma, outcome(tr, reward).turn)
               for tr, a in zip(group.trajectories, adv, strict=True)]
    elif credit.kind == "kevin":
        out = kevin_credits(group, credit, reward)
    else:
        out = loo_turn_credits(group, credit, reward)
    if credit.traj_norm:
        out = [[c / len(row) for c in row] for row in out]
    return out


def batch_credits(groups: Sequence[Group], reward: RewardConfig | None = None,
                  credit: CreditConfig | None = None) -> list[Credits]:
    """`group_credits` for each group."""
    return [group_credits(g, reward, credit) for g in groups]


__all__ = ["Credits", "batch_credits", "group_advantages", "group_credits", "kevin_credits",
           "leap_turn_credit", "loo_turn_credits", "turn_returns"]
