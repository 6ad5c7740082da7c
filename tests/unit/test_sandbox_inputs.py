"""Trial plans: variants, domains, untouched integer inputs, secret seeds, degenerate references."""

import torch

from leap.sandbox.inputs import is_degenerate, make_trials, new_seed
from leap.sandbox.task_module import load_task_module
from leap.tasks.task import parse_task

RELU = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, idx, k):
        return torch.relu(x)
def get_inputs():
    return [torch.rand(64, 32), torch.randint(0, 10, (64,)), 3]
def get_small_inputs():
    return [torch.rand(4, 8), torch.randint(0, 10, (4,)), 3]
def get_init_inputs():
    return []
"""
LOG = RELU.replace("torch.relu(x)", "torch.log(x)") + "LEAP_INPUT_DOMAINS = {0: 'positive'}\n"
PROB = RELU + "LEAP_INPUT_DOMAINS = {0: [0.25, 0.75]}\n"


def _trials(src, n=5, seed=123, small=True):
    task = parse_task(src, "t")
    return make_trials(task, load_task_module(src, "t"), n_trials=n, seed=seed, small=small)


def test_variants_cycle_and_relu_sees_negative_values():
    trials = _trials(RELU, n=5)
    assert [t.name for t in trials] == ["task", "randn", "x100", "x1e-3", "task"]
    assert not any(bool((t.inputs[0] < 0).any()) for t in trials if t.name == "task")  # task draws rand()
    for t in trials[1:4]:
        assert bool((t.inputs[0] < 0).any()) and bool((t.inputs[0] > 0).any())
        assert t.inputs[0].dtype == torch.float32 and t.inputs[0].shape == (4, 8)
    big, tiny = trials[2].inputs[0].abs().max(), trials[3].inputs[0].abs().max()
    assert big > 20 and tiny < 0.01


def test_integer_and_plain_inputs_untouched():
    for t in _trials(RELU, n=8):
        idx = t.inputs[1]
        assert idx.dtype == torch.int64 and int(idx.min()) >= 0 and int(idx.max()) < 10
        assert t.inputs[2] == 3


def test_trials_differ_and_replay_from_the_seed():
    a, b = _trials(RELU, seed=5), _trials(RELU, seed=5)
    assert all(torch.equal(x.inputs[0], y.inputs[0]) for x, y in zip(a, b, strict=True))
    c = _trials(RELU, seed=6)
    assert not torch.equal(a[0].inputs[0], c[0].inputs[0])
    assert not torch.equal(a[0].inputs[0], a[4].inputs[0])  # two 'task' trials: fresh draws
    assert new_seed() != new_seed()


def test_global_rng_is_left_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    _trials(RELU)
    assert torch.equal(torch.rand(3), expected)


def test_positive_domain_never_negative_nor_rescaled():
    trials = _trials(LOG, n=8)
    for t in trials:
        assert bool((t.inputs[0] > 0).all())
    task0 = trials[0].inputs[0]
    assert float(trials[2].inputs[0].max()) <= 1.0  # x100 keeps the task's own rand() values
    assert not torch.equal(trials[1].inputs[0], task0)


def test_range_domain():
    for t in _trials(PROB, n=8):
        x = t.inputs[0]
        if t.name in ("randn",):
            assert float(x.min()) >= 0.25 and float(x.max()) <= 0.75


def test_bf16_inputs_keep_dtype():
    src = RELU.replace("torch.rand(4, 8)", "torch.rand(4, 8, dtype=torch.bfloat16)")
    assert all(t.inputs[0].dtype == torch.bfloat16 for t in _trials(src))


def test_degenerate():
    assert is_degenerate(torch.full((10,), 3.0))
    assert is_degenerate(torch.zeros(4, 4, dtype=torch.int64))
    x = torch.randn(100)
    x[:60] = float("nan")
    assert is_degenerate(x)
    y = torch.randn(100)
    y[:30] = float("inf")
    assert not is_degenerate(y)
    assert not is_degenerate(torch.randn(10))
    assert not is_degenerate(torch.tensor(2.0))  # a scalar result is not 'constant'
    assert not is_degenerate((torch.tensor(1.0), torch.tensor(1.0)))
    assert is_degenerate((torch.ones(5), torch.zeros(5)))
    assert not is_degenerate((torch.ones(5), torch.arange(5.0)))
    assert not is_degenerate(torch.empty(0))
