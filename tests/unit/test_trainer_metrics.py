"""`leap.trainer.metrics.rollout_metrics`: the numbers the learning tests and the progress line read,
checked against groups whose answers are known."""

from __future__ import annotations

import math

import pytest

from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict
from leap.trainer.config import load_config
from leap.trainer.metrics import rollout_metrics

OK = Verdict(status="ok", correct=True, compiled=True)
BAD = Verdict(status="incorrect", compiled=True)
NOCODE = Verdict(status="format_error")


def _traj(task, sample, verdicts, tokens=10):
    turns = [Turn(index=i, messages=[], completion="x", verdict=v, prompt_tokens=3, completion_tokens=tokens)
             for i, v in enumerate(verdicts)]
    return Trajectory(task=task, sample=sample, turns=turns)


@pytest.fixture
def cfg():
    return load_config(None, ["model.path=unused", "rollout.max_turns=3", "rollout.group_size=4"])


def test_acc_at_turn_is_the_fraction_of_samples_solved_by_that_turn(cfg):
    a = Group(task="a", trajectories=[_traj("a", 0, [OK]), _traj("a", 1, [BAD, OK]),
                                      _traj("a", 2, [BAD, BAD, OK]), _traj("a", 3, [NOCODE, BAD, BAD])])
    b = Group(task="b", trajectories=[_traj("b", i, [BAD]) for i in range(4)])
    m = rollout_metrics([a, b], cfg)
    assert m["acc/turn1"] == pytest.approx(1 / 8)
    assert m["acc/turn2"] == pytest.approx(2 / 8)
    assert m["acc/turn3"] == pytest.approx(3 / 8)
    assert m["turns_per_success"] == pytest.approx((1 + 2 + 3) / 3)
    assert m["turn1/incorrect"] == pytest.approx(6 / 8) and m["turn1/format_error"] == pytest.approx(1 / 8)
    assert m["turn1/ok"] == pytest.approx(1 / 8)
    assert m["groups"] == 2 and m["groups/all_failed"] == 1 and m["groups/all_solved"] == 0
    n_turns = 1 + 2 + 3 + 3 + 4
    assert m["turns/mean"] == pytest.approx(n_turns / 8)
    assert m["tokens/completion"] == 10 * n_turns and m["tokens/prompt"] == 3 * n_turns
    assert m["tokens/completion_per_turn"] == pytest.approx(10)


def test_rewards_and_advantages_follow_the_verdicts(cfg):
    mixed = Group(task="a", trajectories=[_traj("a", 0, [OK]), _traj("a", 1, [BAD]),
                                          _traj("a", 2, [BAD]), _traj("a", 3, [NOCODE])])
    m = rollout_metrics([mixed], cfg)
    assert m["reward/max"] > m["reward/min"]  # the solved sample scores above the failures
    assert m["adv/max"] > 0 > m["adv/min"]  # the tournament ranks the solver first, the format error last
    assert abs(m["adv/mean"]) < 1e-6  # zero-sum within the group
    uniform = Group(task="b", trajectories=[_traj("b", i, [BAD]) for i in range(4)])
    u = rollout_metrics([uniform], cfg)
    assert u["adv/max"] == u["adv/min"] == 0 and u["reward/std"] == 0
    assert math.isnan(u["turns_per_success"])  # no success: undefined, not 0


def test_no_groups_gives_no_metrics(cfg):
    assert rollout_metrics([], cfg) == {}
