"""The task generator: distinct, valid, non-degenerate tasks that never overlap the eval split."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from leap.cli.main import app
from leap.tasks.generate import generate_tasks
from leap.tasks.generate.dedup import normalized_source_hash, op_signature
from leap.tasks.generate.generator import eval_sources
from leap.tasks.suite import builtin_tasks
from leap.tasks.task import load_task_dir
from leap.tasks.validate import validate_task


@pytest.fixture(scope="module")
def batch():
    items, stats = generate_tasks(300, seed=11)
    return items, stats


def test_generates_distinct_labelled_tasks(batch):
    items, stats = batch
    assert len(items) == 300 and stats.accepted == 300
    tasks = [i.task for i in items]
    assert len({t.name for t in tasks}) == 300
    assert len({op_signature(t.source, dtype=t.dtype) for t in tasks}) == 300
    assert len({normalized_source_hash(t.source) for t in tasks}) == 300
    assert {t.difficulty for t in tasks} == {"easy", "medium", "hard"}
    assert {t.dtype for t in tasks} == {"fp32", "bf16", "fp16"}
    assert all(t.split == "train" and t.has_small_inputs and t.level == 2 for t in tasks)
    kinds = {op.kind for i in items for op in i.chain.ops}
    assert kinds == {"linear", "unary", "binary", "rowop", "reduce"}
    # reductions in the middle of a chain and at its end both occur
    assert any(i.chain.ops[-1].kind == "reduce" for i in items)
    assert any(op.kind == "rowop" and k < len(i.chain.ops) - 1 for i in items for k, op in enumerate(i.chain.ops))


def test_generated_tasks_revalidate_and_fit_the_gpu(batch):
    items, _ = batch
    for item in random.Random(0).sample(items, 15):
        report = validate_task(item.task)
        assert report.ok, (item.task.name, report.problems)
        assert report.gpu_bytes < 16 * 2**30
        assert report.est_gpu_us >= 50, (item.task.name, report.est_gpu_us)


def test_never_overlaps_the_eval_split(batch):
    items, _ = batch
    evals = builtin_tasks(split="eval")
    eval_ops = {op_signature(t.source, constants=False) for t in evals}
    eval_hashes = {normalized_source_hash(t.source) for t in evals}
    for item in items:
        assert op_signature(item.task.source, constants=False) not in eval_ops
        assert normalized_source_hash(item.task.source) not in eval_hashes
    assert len(eval_sources()) == len(evals)


def test_blocked_sources_are_excluded_by_signature():
    first, _ = generate_tasks(40, seed=5, blocked=[])
    planted = first[7].task.source
    again, stats = generate_tasks(40, seed=5, blocked=[planted])
    sig = op_signature(planted, constants=False)
    assert stats.eval_overlap >= 1
    assert all(op_signature(i.task.source, constants=False) != sig for i in again)


def test_same_seed_same_tasks_other_seed_other_tasks():
    a, _ = generate_tasks(25, seed=2)
    b, _ = generate_tasks(25, seed=2)
    c, _ = generate_tasks(25, seed=3)
    assert [i.task.name for i in a] == [i.task.name for i in b]
    assert {i.task.name for i in a} != {i.task.name for i in c}


def test_cli_generate_writes_loadable_tasks(tmp_path):
    runner = CliRunner()
    res = runner.invoke(app, ["tasks", "generate", "--n", "15", "--seed", "4", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    tasks = load_task_dir(tmp_path / "tasks")
    assert len(tasks) == 15
    assert len((tmp_path / "manifest.jsonl").read_text().splitlines()) == 15
    res = runner.invoke(app, ["tasks", "validate", str(tmp_path / "tasks")])
    assert res.exit_code == 0, res.output
    assert "15/15 tasks valid" in res.output


def test_cli_validate_reports_bad_tasks(tmp_path):
    (tmp_path / "bad.py").write_text(
        "import torch\nimport torch.nn as nn\nclass Model(nn.Module):\n    def forward(self, x):\n"
        "        return x.mul_(2)\ndef get_inputs():\n    return [torch.randn(8, 8)]\n"
        "def get_init_inputs():\n    return []\n")
    res = CliRunner().invoke(app, ["tasks", "validate", str(tmp_path)])
    assert res.exit_code == 1
    assert "modifies" in res.output and "0/1 tasks valid" in res.output


@pytest.mark.slow
def test_full_generation_of_2000_tasks():
    items, _ = generate_tasks(2000, seed=0)  # its speed is a measured figure (README), not a test
    assert len(items) == 2000
    assert len({op_signature(i.task.source, dtype=i.task.dtype) for i in items}) == 2000
