"""Rank-based reward: a pairwise tournament inside a group (DESIGN.md §5).

Each trajectory is reduced to an `Outcome`; two outcomes are compared level by level:

1. solved at an earlier turn > solved at a later turn > never solved;
2. among unsolved: compiled-but-incorrect > compile/runtime error or timeout > format error or rejected
   (the best status any of its turns reached);
3. among solved at the same turn: speed tier of the speedup (best correct turn). Speedups within
   ``dead_zone`` of each other (max/min <= 1 + dead_zone) tie; otherwise the higher tier wins, the same
   tier ties. Skipped when either side has no timing (no GPU);
4. fewer generated tokens (all turns) wins if they differ by more than ``token_margin`` of the larger
   (solved pairs only unless ``token_unsolved``);
5. otherwise a tie.

A_i = (wins_i - losses_i) / (G - 1), in [-1, 1], zero-sum over the group; G = 1 gives [0.0].
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from leap.algorithms.config import RewardConfig
from leap.algorithms.scalar import judged_only, unjudged
from leap.rollout.records import Group, Trajectory
from leap.sandbox.judge.verdict import Verdict

FAIL_RANK: dict[str, int] = {  # needs_gpu / sandbox_error never rank: such trajectories are left out
    "incorrect": 2,
    "compile_error": 1, "runtime_error": 1, "timeout": 1,
    "format_error": 0, "rejected": 0,
}
"""Rank of an unsolved status (higher is better); `ok` never appears unsolved."""


@dataclass(frozen=True)
class Outcome:
    """What the tournament compares. ``turn`` (1-based; 0 = no turns) is the turn that decided it."""

    solved_turn: int | None
    fail_rank: int
    speedup: float | None
    tokens: int
    turn: int


def _speedup(v: Verdict, ref: str) -> float | None:
    return v.speedup_eager if ref == "eager" else v.speedup_compile


def outcome(traj: Trajectory, cfg: RewardConfig | None = None) -> Outcome:
    """Reduce a trajectory to its `Outcome`.

    Solved: the decisive turn is the first correct one, or a later correct turn with a strictly higher
    speedup (when solved samples keep optimising). Unsolved: the first turn reaching the best status.
    """
    cfg = cfg or RewardConfig()
    tokens = traj.completion_tokens
    st = traj.solved_turn
    if st is not None:
        best, turn = None, st
        for t in traj.turns[st - 1:]:
            s = _speedup(t.verdict, cfg.speed_ref) if t.verdict.correct else None
            if s is not None and (best is None or s > best):
                best, turn = s, t.index + 1
        return Outcome(st, len(FAIL_RANK), best, tokens, turn)
    rank, turn = -1, 0
    for t in traj.turns:
        r = FAIL_RANK.get(t.verdict.status, 0)
        if r > rank:
            rank, turn = r, t.index + 1
    return Outcome(None, max(rank, 0), None, tokens, turn)


def speed_tier(s: float, tiers: Sequence[float]) -> int:
    """0-based tier of a speedup; a boundary value belongs to the tier above it."""
    return bisect_right(list(tiers), s)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def compare(a: Outcome, b: Outcome, cfg: RewardConfig | None = None) -> int:
    """+1 if ``a`` beats ``b``, -1 if it loses, 0 for a tie (antisymmetric)."""
    cfg = cfg or RewardConfig()
    if (a.solved_turn is None) != (b.solved_turn is None):
        return 1 if a.solved_turn is not None else -1
    solved = a.solved_turn is not None
    if solved:
        if a.solved_turn != b.solved_turn:
            return 1 if a.solved_turn < b.solved_turn else -1
        if a.speedup is not None and b.speedup is not None:
            lo, hi = sorted((a.speedup, b.speedup))
            close = hi <= lo * (1.0 + cfg.dead_zone) if lo > 0 else hi <= 0
            if not close:
                d = speed_tier(a.speedup, cfg.tiers) - speed_tier(b.speedup, cfg.tiers)
                if d:
                    return _sign(d)
    elif a.fail_rank != b.fail_rank:
        return 1 if a.fail_rank > b.fail_rank else -1
    if cfg.token_margin is not None and (solved or cfg.token_unsolved):
        hi = max(a.tokens, b.tokens)
        if hi > 0 and abs(a.tokens - b.tokens) > cfg.token_margin * hi:
            return 1 if a.tokens < b.tokens else -1
    return 0


def _outcomes(items: Group | Sequence[Trajectory] | Sequence[Outcome], cfg: RewardConfig) -> list[Outcome]:
    seq = items.trajectories if isinstance(items, Group) else list(items)
    return [x if isinstance(x, Outcome) else outcome(x, cfg) for x in seq]


def win_matrix(items: Group | Sequence[Trajectory] | Sequence[Outcome],
               cfg: RewardConfig | None = None) -> list[list[int]]:
    """``M[i][j]`` = compare(i, j): G x G, antisymmetric, zero diagonal."""
    cfg = cfg or RewardConfig()
    outs = _outcomes(items, cfg)
    n = len(outs)
    m = [[0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            c = compare(outs[i], outs[j], cfg)
            m[i][j], m[j][i] = c, -c
    return m


def tournament_advantages(items: Group | Sequence[Trajectory] | Sequence[Outcome],
                          cfg: RewardConfig | None = None) -> list[float]:
    """A_i = (wins_i - losses_i) / (G - 1) for each member of a group (any G >= 1). `unjudged`
    trajectories (``needs_gpu``/``sandbox_error``) get 0.0 and are left out (G counts the judged ones)."""
    seq = items.trajectories if isinstance(items, Group) else list(items)
    if any(isinstance(x, Trajectory) and unjudged(x) for x in seq):
        return judged_only(seq, lambda ts: tournament_advantages(ts, cfg))
    m = win_matrix(items, cfg)
    g = len(m)
    if g <= 1:
        return [0.0] * g
    return [sum(row) / (g - 1) for row in m]


__all__ = ["FAIL_RANK", "Outcome", "compare", "outcome", "speed_tier", "tournament_advantages", "win_matrix"]
