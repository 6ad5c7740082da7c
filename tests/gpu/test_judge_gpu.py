"""The judge's own work on a CUDA GPU: trial inputs drawn on the device, references, degenerate check and
comparison there (no host round trip), fast at full size. Run: pytest -q -m gpu tests/gpu/test_judge_gpu.py -s"""

from __future__ import annotations

import time

import pytest
import torch

from leap.sandbox.judge.compare import bit_identical, compare_outputs, is_degenerate
from leap.sandbox.judge.inputs import make_trials, task_inputs
from leap.sandbox.judge.reference import reference_outputs
from leap.sandbox.judge.task_module import build_model, load_task_module
from leap.tasks.suite import get_builtin
from leap.tasks.task import parse_task

pytestmark = pytest.mark.gpu

SRC = """
import numpy as np
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x, idx, k, h, w):
        return torch.relu(x) + h.float().sum() + w.sum()
def get_inputs():
    h = torch.from_numpy(np.arange(6, dtype=np.float16))          # made on the host: moved
    return [torch.rand(64, 32), torch.randint(0, 10, (64,)), 3, h, torch.rand(5).abs()]
def get_init_inputs():
    return []
LEAP_INPUT_DOMAINS = {4: "positive"}
"""
NUMPY_ONLY = SRC.replace("torch.rand(5).abs()", "torch.from_numpy(torch.rand(5).numpy())")  # fails under cuda


def _trials(src, device, seed=7, n=6):
    return make_trials(parse_task(src, "g"), load_task_module(src, "g"), n_trials=n, seed=seed, small=False,
                       device=device)


def test_trials_are_drawn_on_the_device_with_the_cpu_semantics():
    torch.manual_seed(0)
    cpu_next, cuda_next = torch.rand(3), torch.rand(3, device="cuda")
    torch.manual_seed(0)
    gpu, cpu = _trials(SRC, "cuda"), _trials(SRC, "cpu")
    assert torch.equal(torch.rand(3), cpu_next) and torch.equal(torch.rand(3, device="cuda"), cuda_next)
    for g, c in zip(gpu, cpu, strict=True):
        assert g.name == c.name
        for a, b in zip(g.inputs, c.inputs, strict=True):
            if isinstance(b, torch.Tensor):
                assert a.device.type == "cuda" and a.shape == b.shape and a.dtype == b.dtype
            else:
                assert a == b
        x, idx, w = g.inputs[0], g.inputs[1], g.inputs[4]
        assert int(idx.min()) >= 0 and int(idx.max()) < 10 and bool((w > 0).all())
        assert bool((x >= 0).all()) if g.name == "task" else bool((x < 0).any())
    assert float(gpu[2].inputs[0].abs().max()) > 20 and float(gpu[3].inputs[0].abs().max()) < 0.01
    again = _trials(SRC, "cuda")
    assert all(bit_identical(a.inputs, b.inputs) for a, b in zip(gpu, again, strict=True))
    assert not torch.equal(gpu[0].inputs[0], _trials(SRC, "cuda", seed=8)[0].inputs[0])


def test_task_inputs_fall_back_to_the_host_and_move():
    xs = task_inputs(load_task_module(NUMPY_ONLY, "n"), False, 5, "cuda")
    assert all(x.device.type == "cuda" for x in xs if isinstance(x, torch.Tensor))


def test_references_degenerate_and_compare_stay_on_the_device():
    mod = load_task_module(SRC, "g")
    trials = _trials(SRC, "cuda:0")
    refs = reference_outputs(build_model(mod, [], 42, "cuda:0"), trials, "cuda:0")
    assert all(r.device.type == "cuda" for r in refs) and not any(is_degenerate(r) for r in refs)
    assert is_degenerate(torch.zeros(3_000_000, device="cuda"))
    r = refs[1]
    assert compare_outputs(r, r * (1 + 1e-6)).ok
    bad = r.clone()
    bad[5, 7] += 1.0
    res = compare_outputs(r, bad)
    assert res.reason == "value" and res.mismatches[0].index == (5, 7)
    cpu = compare_outputs(r.cpu(), bad.cpu())
    assert cpu.n_bad == res.n_bad and cpu.max_abs_error == pytest.approx(res.max_abs_error)


def test_judge_side_is_fast_at_full_size():
    task = get_builtin("relu_fp32")
    mod = load_task_module(task.source, task.name)
    model = build_model(mod, [], 42, "cuda:0")
    times = []
    for seed in range(3):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        trials = make_trials(task, mod, n_trials=5, seed=seed, small=False, device="cuda:0")
        refs = reference_outputs(model, trials)  # device=None: stay where drawn
        assert not any(is_degenerate(r) for r in refs)
        assert all(compare_outputs(r, r * (1 + 1e-6)).ok for r in refs)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    print(f"\njudge side relu_fp32 (5 trials: inputs + refs + degenerate + compare): {times}")
    assert min(times) < 1.0
