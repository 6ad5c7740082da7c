"""Evaluation measures: pass@k against brute force, Acc@turn, fast_p, turns per success."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leap.evaluation.metrics import (
    acc_at_turn,
    fast_p,
    pass_at_k,
    pass_at_ks,
    sandbox_evals,
    summarize,
    turns_per_success,
)
from leap.rollout.episode import NO_CODE_FEEDBACK
from leap.sandbox.judge.verdict import Verdict

OK = Verdict(status="ok", correct=True)
BAD = Verdict(status="incorrect", compiled=True)
NOCODE = Verdict(status="format_error", feedback=NO_CODE_FEEDBACK)


def ok(s=None, c=None):
    return Verdict(status="ok", correct=True, speedup_eager=s, speedup_compile=c)


@given(n=st.integers(1, 8), data=st.data())
def test_pass_at_k_matches_brute_force(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    items = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    brute = sum(any(items[i] for i in s) for s in subsets) / len(subsets)
    assert pass_at_k(n, c, k) == pytest.approx(brute)


def test_pass_at_k_errors():
    with pytest.raises(ValueError):
        pass_at_k(2, 3, 1)
    with pytest.raises(ValueError):
        pass_at_k(2, 1, 3)


def test_acc_at_turn_and_turns_per_success():
    res = {"a": [[BAD, OK], [OK]], "b": [[BAD, BAD, BAD], [BAD, BAD, OK]]}
    # a: by turn1 0.5, by turn2 1.0 ; b: 0, 0, 0.5
    assert acc_at_turn(res, 3) == pytest.approx([0.25, 0.5, 0.75])
    assert turns_per_success(res) == pytest.approx((2 + 1 + 3) / 3)
    assert turns_per_success({"a": [[BAD]]}) is None
    assert pass_at_ks(res) == {"1": pytest.approx(0.75), "2": pytest.approx(1.0)}


def test_fast_p_and_untimed():
    res = {"a": [[BAD, ok(1.5, 0.9)], [ok(0.8, 0.5)]], "b": [[ok(1.1, 1.2)], [BAD]]}
    assert fast_p(res, 1.0) == pytest.approx((0.5 + 0.5) / 2)
    assert fast_p(res, 1.2) == pytest.approx(0.25)
    assert fast_p(res, 1.0, "compile") == pytest.approx(0.25)
    assert fast_p({"a": [[OK]]}, 1.0) is None


def test_summary_fields_and_sandbox_evals():
    res = {"a": [[NOCODE, BAD], [OK]]}
    s = summarize(res, 2)
    assert sandbox_evals(res) == 2
    for key in ("acc_at_turn", "fast_1_eager", "fast_1_compile", "fast_1.2_eager", "pass_at_k",
                "turns_per_success", "sandbox_evals"):
        assert key in s
    assert s["status_by_turn"] == [{"format_error": 1, "ok": 1}, {"incorrect": 1}]


def test_speed_measures_are_zero_not_unknown_when_a_gpu_run_solved_nothing():
    gpu_bad = Verdict(status="incorrect", compiled=True, device="cuda")
    cpu_bad = Verdict(status="incorrect", compiled=True, device="cpu")
    assert fast_p({"t": [[gpu_bad], [gpu_bad]]}, 1.0) == 0.0
    assert fast_p({"t": [[cpu_bad]]}, 1.0) is None


def test_unjudged_samples_leave_the_denominator_and_are_counted():
    gpu = Verdict(status="needs_gpu")
    err = Verdict(status="sandbox_error")
    res = {"a": [[OK], [gpu]], "b": [[err]], "c": [[BAD]]}
    s = summarize(res, 1)
    assert s["acc_at_turn"] == [0.5]  # a: 1/1 judged, c: 0/1; b has no judged sample
    assert s["unjudged_samples"] == 2 and s["judged_tasks"] == 2 and s["tasks"] == 3 and s["samples"] == 4
    assert s["status_by_turn"][0]["needs_gpu"] == 1
