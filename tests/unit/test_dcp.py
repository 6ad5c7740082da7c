"""The DCP gate, its budget mode and its statistics, on constructed groups."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from leap.algorithms import DCPConfig, DCPStats, dcp_decide, dcp_step_stats
from leap.algorithms.dcp import gate, needs_turn, thresholds
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict


def group(*trajs: str, expanded: bool = False) -> Group:
    """One string per trajectory, one char per turn: 'o' correct, 'x' incorrect."""
    out = []
    for i, s in enumerate(trajs):
        turns = [Turn(index=k, messages=[], completion="", verdict=Verdict(status="ok" if c == "o" else "incorrect",
                                                                           correct=c == "o"))
                 for k, c in enumerate(s)]
        out.append(Trajectory(task="t", sample=i, turns=turns))
    return Group(task="t", trajectories=out, expanded=expanded)


def first_turn(g: int, f: int) -> Group:
    return group(*(["x"] * f + ["o"] * (g - f)))


def test_default_thresholds():
    assert thresholds(8) == (4, 7)
    assert thresholds(5) == (3, 4)
    assert [f for f in range(9) if gate(f, 8)] == [4, 5, 6, 7]
    groups = [first_turn(8, f) for f in range(9)]
    assert dcp_decide(groups, max_turns=3) == [4 <= f <= 7 for f in range(9)]


def test_custom_thresholds_and_modes():
    cfg = DCPConfig(t_min=1, t_max=8)
    assert [f for f in range(9) if gate(f, 8, cfg)] == list(range(1, 9))
    off = DCPConfig(enabled=False)  # multi-turn without pruning: every group with a failure
    assert dcp_decide([first_turn(4, f) for f in range(5)], 3, off) == [False, True, True, True, True]
    assert dcp_decide([first_turn(4, 2)], max_turns=1) == [False]  # single-turn
    with pytest.raises(ValidationError, match="t_min"):
        DCPConfig(t_min=5, t_max=3)


def test_budget_picks_highest_p_times_one_minus_p():
    # G=8, max_turns=3: costs f*2 -> f=4: 8, f=6: 12, f=7: 14; p(1-p): .25, .1875, .109; f=2, f=8 gated out
    groups = [first_turn(8, f) for f in (7, 2, 6, 8, 4)]
    turn1 = 5 * 8
    assert dcp_decide(groups, 3, DCPConfig(eval_budget=turn1 + 20)) == [False, False, True, False, True]
    assert dcp_decide(groups, 3, DCPConfig(eval_budget=turn1 + 15)) == [False, False, False, False, True]
    # a cheaper, lower-priority group still fills what is left
    mixed = [first_turn(16, 8), first_turn(4, 3)]  # p(1-p) .25 (cost 16) before .1875 (cost 6)
    assert dcp_decide(mixed, 3, DCPConfig(eval_budget=20 + 10)) == [False, True]
    assert dcp_decide(mixed, 3, DCPConfig(eval_budget=20 + 16)) == [True, False]
    assert dcp_decide(groups, 3, DCPConfig(eval_budget=turn1 + 1000)) == dcp_decide(groups, 3)
    assert dcp_decide(groups, 3, DCPConfig(eval_budget=10)) == [False] * 5


def test_stats_count_spent_and_saved():
    expanded = group("o", "o", "xo", "xxx", expanded=True)   # 4 + 1 + 2 = 7 evals
    all_fail = group("x", "x", "x", "x")                      # pruned: 4 spent, could cost 4*2 more
    all_pass = group("o", "o", "o", "o")                      # pruned: 4 spent, nothing to expand
    s = dcp_step_stats([expanded, all_fail, all_pass], max_turns=3)
    assert (s.groups_seen, s.groups_expanded, s.evals_spent, s.evals_all, s.evals_saved) == (3, 1, 15, 23, 8)
    keep = dcp_step_stats([all_pass], max_turns=3, cfg=DCPConfig(keep_solved=True))
    assert keep.evals_saved == 8
    total = DCPStats()
    total += s
    total += s
    assert total.steps == 2 and total.evals_saved == 16 and total.expand_rate == pytest.approx(1 / 3)
    assert DCPStats.from_dict(total.as_dict()) == total
    with pytest.raises(ValueError, match="expanded"):
        dcp_step_stats([all_pass], 3, expanded=[True, False])


def test_needs_turn():
    g = group("o", "x", "xx", "xxx", "xo")
    assert [needs_turn(t, 3) for t in g.trajectories] == [False, True, True, False, False]
    keep = DCPConfig(keep_solved=True)
    assert [needs_turn(t, 3, keep) for t in g.trajectories] == [True, True, True, False, True]
