"""Turn credit (LEAP rule, Kevin returns, per-turn leave-one-out) and the scalar baseline reward."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from leap.algorithms import CreditConfig, RewardConfig, group_credits, group_normalize, scalar_advantages
from leap.algorithms.credit import leap_turn_credit, turn_returns
from leap.algorithms.scalar import turn_score
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict

FAILS = ("format_error", "rejected", "compile_error", "runtime_error", "timeout", "incorrect")


def traj(*statuses: str, speed: float | None = None, sample: int = 0) -> Trajectory:
    turns = [Turn(index=i, messages=[], completion="x", completion_tokens=100,
                  verdict=Verdict(status=s, correct=s == "ok", speedup_eager=speed if s == "ok" else None))
             for i, s in enumerate(statuses)]
    return Trajectory(task="t", sample=sample, turns=turns)


def grp(*trajs: Trajectory) -> Group:
    return Group(task="t", trajectories=list(trajs))


def close(a, b, tol=1e-9) -> bool:
    return all(math.isclose(x, y, abs_tol=tol) for x, y in zip(a, b, strict=True))


# ----------------------------------------------------------------------------- scalar reward

def test_turn_score_kevin_style():
    assert turn_score(Verdict(status="ok", correct=True, speedup_eager=2.0)) == pytest.approx(2.3)
    assert turn_score(Verdict(status="ok", correct=True)) == pytest.approx(0.3)            # untimed
    assert turn_score(Verdict(status="incorrect", speedup_eager=5.0)) == 0.0              # incorrect
    capped = RewardConfig(speed_cap=3.0, correct_weight=1.0, speed_weight=0.5)
    assert turn_score(Verdict(status="ok", correct=True, speedup_eager=10.0), capped) == pytest.approx(2.5)


def test_group_normalisation_modes():
    a = group_normalize([1.0, 2.0, 3.0, 6.0])
    assert sum(a) == pytest.approx(0.0, abs=1e-9)
    assert math.sqrt(sum(x * x for x in a) / 4) == pytest.approx(1.0, rel=1e-5)
    assert group_normalize([1.0, 2.0, 3.0, 6.0], "mean") == [-2.0, -1.0, 0.0, 3.0]
    assert group_normalize([0.3, 0.3]) == [0.0, 0.0]   # eps keeps a flat group finite
    assert scalar_advantages([traj("ok")]) == [0.0]
    adv = scalar_advantages(grp(traj("ok", speed=3.0), traj("incorrect", "ok", speed=1.0), traj("timeout")))
    assert adv[0] > adv[1] > adv[2]


# ----------------------------------------------------------------------------- LEAP rule

def test_leap_rule_discounts_earlier_turns_of_a_success():
    tr = traj("compile_error", "incorrect", "ok")
    assert close(leap_turn_credit(tr, 0.5, 0.4), [0.5 * 0.16, 0.5 * 0.4, 0.5])
    assert leap_turn_credit(tr, -0.25, 0.4) == [-0.25] * 3
    assert leap_turn_credit(tr, 0.0, 0.4) == [0.0] * 3
    # unsolved but positive (best of an all-fail group): credit peaks at its best-status turn
    assert close(leap_turn_credit(traj("compile_error", "incorrect", "runtime_error"), 1.0, 0.5), [0.5, 1, 0.5])


def test_group_credits_leap_with_tournament():
    g = grp(traj("ok"), traj("incorrect", "ok"), traj("incorrect", "incorrect", "incorrect"))
    c = group_credits(g)
    assert c[0] == [1.0]
    assert close(c[1], [0.0, 0.0])                  # wins 1, loses 1
    assert c[2] == [-1.0, -1.0, -1.0]
    norm = group_credits(g, credit=CreditConfig(traj_norm=True))
    assert close(norm[2], [-1 / 3] * 3)


# ----------------------------------------------------------------------------- Kevin / per-turn LOO

def test_kevin_returns_and_pooled_normalisation():
    tr = traj("incorrect", "incorrect", "ok", speed=1.0)   # scores 0, 0, 1.3
    assert close(turn_returns(tr, 0.4), [0.16 * 1.3, 0.4 * 1.3, 1.3])
    c = group_credits(grp(tr, traj("ok", speed=2.0)), credit=CreditConfig(kind="kevin"))
    flat = [x for row in c for x in row]
    assert sum(flat) == pytest.approx(0.0, abs=1e-9) and len(flat) == 4


def test_loo_turn_by_hand():
    g = grp(traj("ok", speed=1.0), traj("incorrect", "ok", speed=1.0), traj("incorrect", "incorrect"))
    c = group_credits(g, credit=CreditConfig(kind="loo_turn", gamma=0.5))
    # returns: [1.3], [0.65, 1.3], [0, 0]
    assert close(c[0], [1.3 - (0.65 + 0.0) / 2])
    assert close(c[1], [0.65 - (1.3 + 0.0) / 2, 1.3 - 0.0])
    assert close(c[2], [0.0 - (1.3 + 0.65) / 2, 0.0 - 1.3])
    lone = group_credits(grp(traj("incorrect", "incorrect", "ok", speed=1.0), traj("incorrect", "ok", speed=1.0)),
                         credit=CreditConfig(kind="loo_turn", gamma=0.5))
    assert close(lone[0], [0.325 - 0.65, 0.65 - 1.3, 1.3 - 1.3])   # turn 3 alone: baseline from turn 2


# ----------------------------------------------------------------------------- no bias from turn counts
#
# Property tested: the credit of a trajectory does not depend on how many turns its *failing* peers
# took. Take any group, append extra failing turns (no better than what they reached) to peers that
# never solved; then
#   * leap (tournament or scalar reward): every other trajectory's credits are identical;
#   * loo_turn: every trajectory's turn-1 credit is identical, and at every turn index the credits of
#     the trajectories present sum to zero (a same-stage baseline, whatever the turn counts).
# Kevin's pooled normalisation does NOT have the first property (checked below as a contrast).

_members = st.lists(st.tuples(st.lists(st.sampled_from(FAILS), min_size=0, max_size=2),
                              st.booleans(), st.floats(0.5, 4.0)), min_size=2, max_size=6)


def _build(members, extra: int = 0) -> Group:
    trajs = []
    for i, (fails, solves, speed) in enumerate(members):
        statuses = list(fails) + (["ok"] if solves else [])
        if not statuses:
            statuses = ["incorrect"]
        if not solves:
            statuses += ["format_error"] * extra   # a worse-or-equal failing turn, never a better one
        trajs.append(traj(*statuses, speed=speed, sample=i))
    return grp(*trajs)


@pytest.mark.parametrize("kind", ["tournament", "scalar"])
@given(members=_members, extra=st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_leap_credit_ignores_failing_peers_turn_counts(kind, members, extra):
    reward = RewardConfig(kind=kind)
    a = group_credits(_build(members), reward)
    b = group_credits(_build(members, extra), reward)
    for (_, solves, _), x, y in zip(members, a, b, strict=True):
        # solved members are untouched; a lengthened failing peer keeps the credits of its old turns
        assert close(x, y) if solves else close(x, y[:len(x)])


@given(members=_members, extra=st.integers(1, 3))
@settings(max_examples=60, deadline=None)
def test_loo_turn_is_a_same_stage_baseline(members, extra):
    credit = CreditConfig(kind="loo_turn")
    a = group_credits(_build(members), credit=credit)
    b = group_credits(_build(members, extra), credit=credit)
    assert close([r[0] for r in a], [r[0] for r in b])
    for c in (a, b):
        for t in range(max(map(len, c))):
            at_t = [row[t] for row in c if len(row) > t]
            if len(at_t) > 1:
                assert abs(sum(at_t)) < 1e-9


def test_kevin_pooled_baseline_does_depend_on_peer_turn_counts():
    short = grp(traj("ok", speed=1.0), traj("incorrect"))
    long = grp(traj("ok", speed=1.0), traj("incorrect", "incorrect", "incorrect"))
    kevin = CreditConfig(kind="kevin")
    assert group_credits(short, credit=kevin)[0] != pytest.approx(group_credits(long, credit=kevin)[0])
    loo = CreditConfig(kind="loo_turn")
    assert group_credits(short, credit=loo)[0] == pytest.approx(group_credits(long, credit=loo)[0])
