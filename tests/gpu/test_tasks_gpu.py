"""GPU: template solutions of built-in tasks verify with speedups; built-in references run at GPU shapes."""

from __future__ import annotations

import pytest
import torch

from leap.tasks.module import build_model, load_module, make_inputs
from leap.tasks.solutions import reference_solution
from leap.tasks.suite import builtin_tasks

pytestmark = pytest.mark.gpu


def test_builtin_solutions_verify_on_the_gpu():
    from leap.sandbox import verify_many

    pairs = [(t, reference_solution(t)) for t in builtin_tasks() if reference_solution(t)]
    verdicts = dict(verify_many(pairs, device="cuda"))
    bad = {pairs[i][0].name: v.feedback for i, v in verdicts.items() if v.status != "ok"}
    assert not bad, bad
    assert all(v.speedup_eager is not None for v in verdicts.values())


@pytest.mark.parametrize("task", builtin_tasks(level=3) + builtin_tasks(level=2)[:6], ids=lambda t: t.name)
def test_reference_runs_at_gpu_shapes(task):
    mod = load_module(task)
    with torch.device("cuda"):
        inputs = make_inputs(mod, 0, small=False)
    model = build_model(mod, "cuda")
    with torch.no_grad():
        out = model(*inputs)
    assert torch.isfinite(out.float()).all()


def test_generated_solutions_verify_on_the_gpu():
    from leap.sandbox import verify_many
    from leap.tasks.generate import generate_tasks

    items, _ = generate_tasks(40, seed=101, with_solutions=True)
    pairs = [(i.task, i.solution) for i in items if i.solution]
    verdicts = dict(verify_many(pairs, device="cuda"))
    ok = [v for v in verdicts.values() if v.status == "ok"]
    assert len(ok) >= 0.9 * len(pairs), {pairs[i][0].name: v.feedback for i, v in verdicts.items()
                                         if v.status != "ok"}
