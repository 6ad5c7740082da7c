"""validate_task rejects broken and degenerate tasks with a clear reason; KernelBench's conventions
(non-negative torch.rand inputs, a random forward) are notes and warnings."""

from __future__ import annotations

import torch

from leap.tasks.task import parse_task
from leap.tasks.validate import degenerate_reason, validate_task

TEMPLATE = '''
import torch
import torch.nn as nn
{meta}

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return {expr}


def get_inputs():
    return [{inp}]


def get_small_inputs():
    return [{inp}]


def get_init_inputs():
    return []
'''


def _task(expr: str, inp: str = "torch.randn(16, 64)", meta: str = ""):
    return parse_task(TEMPLATE.format(expr=expr, inp=inp, meta=meta), name="t")


def _problems(expr, strict: bool = True, **kw):
    return " | ".join(validate_task(_task(expr, **kw), strict=strict).problems)


def test_good_task_passes():
    assert _problems("torch.relu(x) * 2") == ""


def test_non_negative_inputs_are_a_note():
    r = validate_task(_task("torch.relu(x) + 1", inp="torch.rand(16, 64)"))
    assert r.ok and any("non-negative" in n for n in r.notes)
    assert _problems("torch.log(x)", inp="torch.rand(16, 64) + 0.1", meta='LEAP_INPUT_DOMAINS = {0: "positive"}') == ""
    assert "outside its declared domain" in _problems(
        "torch.log(x.abs() + 1)", meta='LEAP_INPUT_DOMAINS = {0: "positive"}')


def test_degenerate_outputs_are_rejected():
    assert "near zero" in _problems("torch.relu(x - 3.0)")
    assert "near their mean" in _problems("torch.sigmoid(x * 0 + 5.0)")
    assert "do not change with the inputs" in _problems("torch.arange(64.0).expand(16, 64) + x[:1, :1] * 1e-9")
    assert "NaN/Inf" in _problems("torch.log(x)")
    # exp overflows to inf on the x100 inputs and inf - inf is NaN where float64 is finite (gelu(inf) is inf
    # in current torch, so the former gelu(exp(x)) case no longer produced a NaN)
    assert "overflows" in _problems("torch.exp(x) - torch.exp(x) + x")
    assert "rounding noise" in _problems("(x - x.mean(dim=-1, keepdim=True)).mean(dim=-1)")


def test_random_forward_is_a_warning_or_a_declared_note():
    r = validate_task(_task("x + torch.rand_like(x)"))
    assert r.ok and any("random numbers" in w for w in r.warnings)
    r = validate_task(_task("x + torch.rand_like(x)", meta="LEAP_RANDOM_FORWARD = True"))
    assert r.ok and not r.warnings and any("random numbers" in n for n in r.notes)


def test_broken_references_are_rejected():
    assert "reference fails" in _problems("x @ torch.ones(3, 3)")
    assert "modifies its inputs" in _problems("x.mul_(2)")
    problems = validate_task(parse_task(
        "import nosuchmodule\nclass Model: pass\ndef get_inputs(): pass\ndef get_init_inputs(): pass",
        name="b")).problems
    assert problems == ["b: needs the Python package 'nosuchmodule', which is not installed (pip install nosuchmodule)"]


def test_quality_findings_are_warnings_for_foreign_tasks():
    r = validate_task(_task("torch.relu(x - 3.0)"))  # no LEAP metadata: a KernelBench-style file
    assert r.ok and any("near zero" in w for w in r.warnings)
    assert not validate_task(_task("torch.relu(x - 3.0)", meta='LEAP_TAGS = ["x"]')).ok


def test_scalar_outputs_are_judged_only_by_their_dependence_on_inputs():
    assert _problems("torch.nn.functional.mse_loss(x, x * 0.5)") == ""
    assert "do not change" in _problems("(x * 0).sum() + 3.0")


def test_integer_outputs():
    assert degenerate_reason(torch.zeros(100, dtype=torch.long), None) is not None
    assert degenerate_reason(torch.randint(0, 50, (100,)), torch.randint(0, 50, (100,))) is None
    assert "do not change" in degenerate_reason(torch.arange(100), torch.arange(100))
