"""The judge's memory plan: trials split into rounds that fit a byte budget, and the budget itself."""

from __future__ import annotations

import threading
import time

import pytest

from leap.sandbox.judge import memory_plan as mp
from leap.sandbox.judge.task_module import load_task_module
from leap.tasks.suite import get_builtin


@pytest.mark.parametrize(("n", "per", "fixed", "cap", "want"), [
    (5, 10, 0, None, (5,)),          # no budget known: one round
    (5, 10, 0, 50, (5,)),            # everything fits
    (5, 10, 0, 30, (3, 2)),          # three a round, evened out
    (5, 10, 5, 30, (2, 2, 2)),       # the fixed part counts: 2 fit a round; no round of one: a sixth trial
    (5, 100, 0, 30, (2, 2, 2)),      # a single trial over the budget: still two a round
    (5, 10, 40, 30, (2, 2, 2)),      # the fixed part alone over the budget
    (8, 10, 0, 30, (3, 3, 2)),
    (1, 100, 0, 30, (1,)),           # too few trials to split: one round as before
    (3, 100, 0, 30, (3,)),
    (6, 10, 0, 40, (3, 3)),
])
def test_plan_rounds(n, per, fixed, cap, want):
    got = mp.plan_rounds(n, per, fixed, cap)
    assert got == want and n <= sum(got) <= n + 1


@pytest.mark.parametrize(("n", "per", "fixed", "cap", "want"), [
    (5, 10, 0, 15, (1, 1, 1, 1, 1)),  # one fits, two do not: one a round, no extra trial
    (5, 10, 0, 5, (1, 1, 1, 1, 1)),   # not even one fits: one a round (run alone; the judge's OOM if it fails)
    (5, 10, 0, 30, (3, 2)),           # two or more fit: as under LEAP's rules
    (5, 10, 0, 50, (5,)),
])
def test_plan_rounds_of_one_under_kernelbench_rules(n, per, fixed, cap, want):
    assert mp.plan_rounds(n, per, fixed, cap, min_per_round=1) == want


def test_plan_sizes_count_inputs_outputs_and_weights():
    task = get_builtin("relu_fp32")
    module = load_task_module(task.source, task.name)
    init = list(module.get_init_inputs())
    ins = sum(t.numel() * t.element_size() for t in module.get_small_inputs())
    fixed, per_trial = mp.plan_sizes(module, init, small=True, poison_bytes=7)
    assert per_trial == mp.TRIAL_COPIES * 2 * ins  # relu: output as large as the input
    assert fixed == 7 and mp.plan_rounds(5, per_trial, fixed, None) == (5,)
    plan = mp.CheckPlan(fixed, per_trial, mp.plan_rounds(5, per_trial, fixed, fixed + 2 * per_trial))
    assert plan.rounds == (2, 2, 2)
    assert not plan.oversized(plan.cost(3)) and plan.oversized(plan.cost(1))


def test_every_round_holds_two_trials_at_least():
    """The child's cross-trial checks (input rotation, stale outputs after N calls) need two input sets."""
    for n in range(4, 12):
        for per in (1, 7, 50, 10**6):
            for cap in (1, 20, 60, 10**3):
                rounds = mp.plan_rounds(n, per, 3, cap)
                assert n <= sum(rounds) <= n + 1 and min(rounds) >= 2, (n, per, cap, rounds)
                fit = max(2, (cap - 3) // per) if cap > 3 else 2
                assert len(rounds) == 1 or max(rounds) <= fit, (n, per, cap, rounds)


def test_budget_makes_a_second_holder_wait_and_runs_an_oversized_one_alone():
    budget = mp.MemoryBudget(100)
    order: list[str] = []
    first_in = threading.Event()

    def first():
        with budget.hold(60):
            first_in.set()
            time.sleep(0.3)
            order.append("first done")

    def second():
        first_in.wait()
        with budget.hold(60):
            order.append("second in")
            assert budget.held == 60

    def huge():
        first_in.wait()
        with budget.hold(10**9):  # clipped to the capacity: waits for an empty budget
            order.append("huge in")
            assert budget.held == 100

    threads = [threading.Thread(target=f) for f in (first, second, huge)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert order[0] == "first done" and set(order[1:]) == {"second in", "huge in"}
    assert budget.held == 0


def test_budget_serves_in_arrival_order():
    """A big request waiting for room holds back small requests that came after it (no starvation)."""
    budget = mp.MemoryBudget(100)
    order: list[str] = []
    small_in = threading.Event()
    release = threading.Event()

    def holder():
        with budget.hold(30):
            small_in.set()
            release.wait(5)

    def big():
        with budget.hold(90):
            order.append("big")

    def late_small():
        with budget.hold(10):
            order.append("late small")

    t1 = threading.Thread(target=holder)
    t1.start()
    small_in.wait(5)
    t2 = threading.Thread(target=big)
    t2.start()
    time.sleep(0.2)  # the big request is queued first
    t3 = threading.Thread(target=late_small)
    t3.start()
    time.sleep(0.2)
    assert order == []  # 10 bytes would fit beside the holder, but the big request is ahead of it
    release.set()
    for t in (t1, t2, t3):
        t.join(5)
    assert order == ["big", "late small"]


def test_no_capacity_means_no_waiting():
    budget = mp.MemoryBudget(None)
    with budget.hold(10**12), budget.hold(10**12):
        assert budget.held == 0


def test_capacity_from_config_or_host():
    assert mp.device_capacity("cpu", None, 0.5, 2.0) == 2 << 30
    host = mp.device_capacity("cpu", None, 0.5, None)
    assert host is None or host > 0
