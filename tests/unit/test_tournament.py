"""The group tournament (DESIGN.md §5): ordering rules and the properties it must keep."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leap.algorithms import RewardConfig, tournament_advantages
from leap.algorithms.tournament import Outcome, compare, outcome, speed_tier
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import STATUSES, Verdict

CFG = RewardConfig()


def traj(*statuses: str, speed: float | None = None, tokens: int = 100, sample: int = 0) -> Trajectory:
    """A trajectory with one turn per status; correct turns carry ``speed`` (None = untimed)."""
    turns = []
    for i, s in enumerate(statuses):
        ok = s == "ok"
        v = Verdict(status=s, correct=ok, compiled=s in ("ok", "incorrect"),
                    speedup_eager=speed if ok else None)
        turns.append(Turn(index=i, messages=[], completion="x", verdict=v, completion_tokens=tokens))
    return Trajectory(task="t", sample=sample, turns=turns)


def adv(*trajs: Trajectory, cfg: RewardConfig = CFG) -> list[float]:
    return tournament_advantages(Group(task="t", trajectories=list(trajs)), cfg)


def test_ordering_of_outcomes():
    ladder = [traj("ok"), traj("incorrect", "ok"), traj("rejected", "incorrect", "ok"),
              traj("incorrect"), traj("compile_error"), traj("format_error")]
    a = adv(*ladder)
    assert a == sorted(a, reverse=True) and len(set(a)) == len(a)
    assert a[0] == 1.0 and a[-1] == -1.0


@pytest.mark.parametrize("x,y", [("compile_error", "runtime_error"), ("runtime_error", "timeout"),
                                 ("format_error", "rejected")])
def test_failure_classes_that_tie(x, y):
    assert adv(traj(x), traj(y)) == [0.0, 0.0]


def test_unsolved_rank_is_best_status_reached():
    o = outcome(traj("format_error", "incorrect", "compile_error"))
    assert o.solved_turn is None and o.turn == 2
    assert adv(traj("format_error", "incorrect", "compile_error"), traj("runtime_error")) == [1.0, -1.0]


@pytest.mark.parametrize("a,b,expected", [
    (1.2, 1.0, 1),      # tier 1.05-1.5 beats 0.8-1.05
    (1.1, 1.45, 0),     # same tier
    (1.04, 1.06, 0),    # different tiers but inside the ±3% dead zone
    (1.02, 1.08, -1),   # different tiers, outside the dead zone
    (0.5, 0.79, 0),     # both < 0.8
    (3.5, 2.0, 1),      # > 3 beats 1.5-3
    (10.0, 3.2, 0),     # both > 3
])
def test_speed_tiers_and_dead_zone(a, b, expected):
    assert compare(outcome(traj("ok", speed=a)), outcome(traj("ok", speed=b))) == expected


def test_speed_absent_without_timing_falls_to_tokens():
    assert adv(traj("ok", speed=None, tokens=100), traj("ok", speed=5.0, tokens=100)) == [0.0, 0.0]
    assert adv(traj("ok", speed=None, tokens=100), traj("ok", speed=5.0, tokens=200)) == [1.0, -1.0]


def test_speed_tier_boundaries():
    assert [speed_tier(s, CFG.tiers) for s in (0.1, 0.8, 1.0, 1.05, 1.2, 1.5, 2.9, 3.0, 50)] == \
        [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_token_tiebreak_margin():
    assert adv(traj("ok", tokens=100), traj("ok", tokens=115)) == [1.0, -1.0]   # 13% apart
    assert adv(traj("ok", tokens=100), traj("ok", tokens=105)) == [0.0, 0.0]    # 5% apart
    # speed beats tokens; earlier solve beats tokens
    assert adv(traj("ok", speed=2.0, tokens=1000), traj("ok", speed=1.0, tokens=10)) == [1.0, -1.0]
    assert adv(traj("ok", tokens=1000), traj("incorrect", "ok", tokens=10)) == [1.0, -1.0]
    # unsolved pairs ignore tokens unless asked
    assert adv(traj("incorrect", tokens=10), traj("incorrect", tokens=900)) == [0.0, 0.0]
    cfg = CFG.model_copy(update={"token_unsolved": True})
    assert adv(traj("incorrect", tokens=10), traj("incorrect", tokens=900), cfg=cfg) == [1.0, -1.0]
    off = CFG.model_copy(update={"token_margin": None})
    assert adv(traj("ok", tokens=100), traj("ok", tokens=900), cfg=off) == [0.0, 0.0]


def test_small_groups():
    assert tournament_advantages([traj("ok")]) == [0.0]
    assert tournament_advantages([]) == []


# ----------------------------------------------------------------------------- properties

def _outcome_strategy(timed: bool = True):
    solved = st.builds(lambda t, s, k: Outcome(t, 3, s, k, t), st.integers(1, 3),
                       st.one_of(st.none(), st.floats(0.05, 20.0)) if timed else st.none(),
                       st.integers(0, 4000))
    unsolved = st.builds(lambda r, k: Outcome(None, r, None, k, 1), st.integers(0, 2), st.integers(0, 4000))
    return st.one_of(solved, unsolved)


@given(st.lists(_outcome_strategy(), min_size=1, max_size=12))
@settings(max_examples=200, deadline=None)
def test_zero_sum_and_bounded(outs):
    a = tournament_advantages(outs)
    assert abs(sum(a)) < 1e-9
    assert all(-1.0 <= x <= 1.0 for x in a)


@given(st.lists(st.lists(st.sampled_from(STATUSES), min_size=1, max_size=3), min_size=2, max_size=8),
       st.lists(st.integers(1, 500), min_size=8, max_size=8))
@settings(max_examples=100, deadline=None)
def test_zero_sum_on_real_trajectories(status_lists, toks):
    trajs = [traj(*s, speed=1.0 + i / 10, tokens=toks[i]) for i, s in enumerate(status_lists)]
    a = adv(*trajs)
    assert abs(sum(a)) < 1e-9 and all(-1.0 <= x <= 1.0 for x in a)


def _tier_core(k: int, tiers: list[float], dz: float) -> tuple[float, float]:
    """The part of tier k at least the dead zone away from its boundaries."""
    lo = tiers[k - 1] * (1 + dz) if k > 0 else 0.01
    hi = tiers[k] / (1 + dz) if k < len(tiers) else 100.0
    return lo, hi


@given(st.lists(st.tuples(st.integers(0, 4), st.floats(0, 1), st.integers(1, 2)), min_size=2, max_size=10),
       st.lists(st.floats(0.2, 5.0), min_size=5, max_size=5))
@settings(max_examples=200, deadline=None)
def test_invariant_to_monotone_rescaling_within_tiers(members, powers):
    """Move every speedup by a per-tier increasing map of the tier's core onto itself: A is unchanged.

    (Cores = each tier minus a dead-zone band at its boundaries, so no pair crosses the ±3% relation.)
    """
    tiers, dz = CFG.tiers, CFG.dead_zone

    def place(k: int, u: float) -> float:
        lo, hi = _tier_core(k, tiers, dz)
        return lo + (hi - lo) * u

    before = [Outcome(turn, 3, place(k, u), 100, turn) for k, u, turn in members]
    after = [Outcome(turn, 3, place(k, u ** powers[k]), 100, turn) for k, u, turn in members]
    assert tournament_advantages(before) == tournament_advantages(after)


@given(st.lists(st.booleans(), min_size=2, max_size=16))
@settings(max_examples=200, deadline=None)
def test_binary_outcomes_equal_rloo(solved):
    trajs = [traj("ok") if s else traj("incorrect", sample=i) for i, s in enumerate(solved)]
    a = adv(*trajs)
    r = [1.0 if s else 0.0 for s in solved]
    g = len(r)
    rloo = [r[i] - (sum(r) - r[i]) / (g - 1) for i in range(g)]
    assert all(math.isclose(x, y, abs_tol=1e-12) for x, y in zip(a, rloo, strict=True))


@pytest.mark.parametrize("status", ["needs_gpu", "sandbox_error"])
def test_unjudged_samples_get_zero_and_do_not_rank(status):
    from leap.algorithms.credit import group_credits
    from leap.algorithms.scalar import scalar_advantages

    a = adv(traj("ok"), traj(status), traj("incorrect"))
    assert a[1] == 0.0 and a[0] == 1.0 and a[2] == -1.0  # as if the group were the two judged ones
    assert adv(traj(status), traj("incorrect", status)) == [0.0, 0.0]
    s = scalar_advantages([traj("ok"), traj(status), traj("incorrect")])
    assert s[1] == 0.0 and s[0] > 0 > s[2] and math.isclose(s[0] + s[2], 0.0, abs_tol=1e-9)
    group = Group(task="t", trajectories=[traj("ok"), traj("incorrect", status), traj("incorrect")])
    for kind in ("leap", "kevin", "loo_turn"):
        from leap.algorithms.config import CreditConfig

        cr = group_credits(group, CFG, CreditConfig(kind=kind))
        assert cr[1] == [0.0, 0.0] and cr[0][0] > 0
    assert adv(traj(status, "ok"), traj("incorrect"))[0] == 1.0  # solved despite an earlier fault: ranked
