"""Trial plans: variants, domains, untouched integer inputs, secret seeds, degenerate references."""

import torch

from leap.sandbox.judge.inputs import SAMPLE, _sample, is_degenerate, make_trials, new_seed, task_inputs
from leap.sandbox.judge.task_module import load_task_module
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


def test_explicit_cpu_device_gives_the_same_trials():
    task, mod = parse_task(LOG, "t"), load_task_module(LOG, "t")
    a = make_trials(task, mod, n_trials=6, seed=9, small=True)
    b = make_trials(task, mod, n_trials=6, seed=9, small=True, device="cpu")
    for x, y in zip(a, b, strict=True):
        assert x.name == y.name and all(
            torch.equal(p, q) if isinstance(p, torch.Tensor) else p == q for p, q in zip(x.inputs, y.inputs, strict=True))
        assert all(p.device.type == "cpu" for p in y.inputs if isinstance(p, torch.Tensor))


def test_task_inputs_replay_and_leave_the_global_rng_alone():
    mod = load_task_module(RELU, "t")
    torch.manual_seed(3)
    expected = torch.rand(2)
    torch.manual_seed(3)
    a, b = task_inputs(mod, True, 11, "cpu"), task_inputs(mod, True, 11, torch.device("cpu"))
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]) and a[2] == 3
    assert torch.equal(torch.rand(2), expected)


def _off_sample(n):
    """A position of a length-n tensor that is_degenerate's fixed subset does not look at."""
    seen = torch.zeros(n, dtype=torch.bool)
    seen[_sample(torch.arange(n))] = True
    return int((~seen).nonzero()[0])


def test_degenerate_on_big_tensors_is_exact_about_constants():
    n = 2 * SAMPLE + 7
    off = _off_sample(n)
    x = torch.full((n,), 2.0)
    assert is_degenerate(x)
    x[off] = 3.0  # one different value the subset does not see: still not constant
    assert not is_degenerate(x)
    ints = torch.zeros(n, dtype=torch.int32)
    assert is_degenerate(ints)
    ints[off] = 1
    assert not is_degenerate(ints)
    sparse = torch.zeros(n, 1)
    sparse[-1] = float("nan")
    sparse[off] = 5.0  # NaN elsewhere must not hide the varying value
    assert not is_degenerate(sparse)
    assert not is_degenerate(torch.randn(n).relu())


def test_degenerate_nonfinite_share_on_big_tensors():
    n = 2 * SAMPLE
    g = torch.Generator().manual_seed(1)
    x = torch.randn(n, generator=g)
    x[torch.randperm(n, generator=g)[: int(0.6 * n)]] = float("nan")
    assert is_degenerate(x)
    y = torch.randn(n, generator=g)
    y[torch.randperm(n, generator=g)[: int(0.4 * n)]] = float("inf")
    assert not is_degenerate(y)
    # the same positions for every tensor of that length: sampling commutes with elementwise maps
    idx = _sample(torch.arange(n))
    assert idx.numel() == SAMPLE and len(set(idx.tolist())) > SAMPLE // 2 and 0 <= idx.min() <= idx.max() < n
    assert torch.equal(_sample(torch.arange(n) * 3 - 1), idx * 3 - 1)
    small = torch.arange(SAMPLE)
    assert torch.equal(_sample(small), small)  # small tensors are compared whole


HUGE_INPUTS = RELU.replace("torch.rand(4, 8)", "torch.rand(2 ** 38)")  # 1 TiB of float32 in the small inputs
HUGE_MODEL = RELU.replace("class Model(nn.Module):", """class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.empty(2 ** 38))
""")


def test_inputs_too_large_for_the_host_are_the_judges_memory_error_before_any_allocation():
    import pytest

    from leap.sandbox.judge.inputs import planned_bytes

    module = load_task_module(HUGE_INPUTS, "huge")
    assert planned_bytes(module, small=True) == 2 ** 40 + 4 * 8  # the float tensor + the int64 index tensor
    with pytest.raises(MemoryError, match=r"inputs need 5120\.0 GiB; the host has"):
        _trials(HUGE_INPUTS)  # 5 trials of it at once
    assert planned_bytes(load_task_module(RELU, "r"), small=True) == 4 * 8 * 4 + 4 * 8


def test_model_weights_too_large_for_the_host_are_the_judges_memory_error():
    import pytest

    from leap.sandbox.judge.task_module import build_model, planned_model_bytes

    module = load_task_module(HUGE_MODEL, "huge_model")
    assert planned_model_bytes(module, []) == 2 ** 40
    with pytest.raises(MemoryError, match=r"Model weights need 1024\.0 GiB"):
        build_model(module, [], seed=0)
