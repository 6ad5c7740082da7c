"""Task sources as fresh modules; seeded Model construction shared with the candidate."""

import sys

import pytest
import torch

from leap.sandbox.judge.task_module import (
    TaskModuleError,
    build_candidate,
    build_model,
    get_inputs,
    init_inputs,
    load_task_module,
)

SRC = """
import torch
import torch.nn as nn
COUNTER = []
class Model(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.lin = nn.Linear(n, n)
    def forward(self, x):
        return self.lin(x)
def get_inputs():
    return [torch.randn(64, 8)]
def get_small_inputs():
    return [torch.randn(2, 8)]
def get_init_inputs():
    return [8]
"""


def test_fresh_module_each_load():
    a, b = load_task_module(SRC, "lin"), load_task_module(SRC, "lin")
    assert a is not b and a.__name__ != b.__name__
    a.COUNTER.append(1)
    assert b.COUNTER == []
    assert a.__name__ not in sys.modules


def test_seeded_model_and_candidate_agree():
    mod = load_task_module(SRC, "lin")
    init = init_inputs(mod, 0)
    m1, m2 = build_model(mod, init, 7), build_model(mod, init, 7)
    assert torch.equal(m1.lin.weight, m2.lin.weight)
    assert not torch.equal(m1.lin.weight, build_model(mod, init, 8).lin.weight)

    class ModelNew(torch.nn.Module):
        def __init__(self, n):
            super().__init__()
            self.lin = torch.nn.Linear(n, n)
    assert torch.equal(build_candidate(ModelNew, init, 7).lin.weight, m1.lin.weight)


def test_small_inputs():
    mod = load_task_module(SRC, "lin")
    assert get_inputs(mod, small=True)[0].shape == (2, 8)
    assert get_inputs(mod, small=False)[0].shape == (64, 8)
    no_small = load_task_module(SRC.replace("def get_small_inputs", "def other"), "lin2")
    assert get_inputs(no_small, small=True)[0].shape == (64, 8)


@pytest.mark.parametrize("src,match", [
    ("def f(:\n", "not valid Python"),
    ("raise RuntimeError('boom')\n", "fails to run .RuntimeError: boom"),
    ("def get_inputs(): return []\ndef get_init_inputs(): return []\n", "missing Model"),
])
def test_bad_sources_give_one_line(src, match):
    with pytest.raises(TaskModuleError, match=match) as err:
        load_task_module(src, "bad")
    assert "\n" not in str(err.value) and "task bad" in str(err.value)


def test_get_inputs_must_return_a_list():
    mod = load_task_module(SRC.replace("return [torch.randn(64, 8)]", "return 3"), "x")
    with pytest.raises(TaskModuleError, match="must return a list"):
        get_inputs(mod, small=False)


def test_seeded_builds_do_not_interleave_with_trial_draws_in_other_threads():
    import threading

    from leap.sandbox.judge.inputs import make_trials
    from leap.tasks.task import parse_task

    src = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(256, 256)
    def forward(self, x):
        return self.lin(x)
def get_inputs():
    return [torch.randn(64, 256)]
def get_init_inputs():
    return []
"""
    mod, task = load_task_module(src, "par"), parse_task(src, "par")
    expected = build_model(mod, [], 42).lin.weight.detach().clone()
    stop, bad = threading.Event(), []

    def draw():
        while not stop.is_set():
            make_trials(task, mod, n_trials=2, seed=1, small=False)

    threads = [threading.Thread(target=draw) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        for _ in range(40):
            if not torch.equal(build_model(mod, [], 42).lin.weight, expected):
                bad.append(1)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert not bad
