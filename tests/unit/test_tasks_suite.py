"""The built-in suite: size, levels, split, metadata, and every task passes validation."""

from __future__ import annotations

import collections

import pytest

from leap.tasks.module import single_thread
from leap.tasks.suite import builtin_tasks
from leap.tasks.validate import validate_task


def test_suite_size_levels_and_split():
    tasks = builtin_tasks()
    by_level = collections.Counter(t.level for t in tasks)
    assert by_level[1] >= 30 and by_level[2] >= 20 and by_level[3] >= 10
    assert len({t.name for t in tasks}) == len(tasks)
    assert all(t.split in ("train", "eval") for t in tasks)
    evals = [t for t in tasks if t.split == "eval"]
    assert 0.2 <= len(evals) / len(tasks) <= 0.3
    assert {t.level for t in evals} == {1, 2, 3}
    assert {t.dtype for t in tasks} >= {"fp32", "bf16", "fp16"}
    assert all(t.has_small_inputs and t.tags for t in tasks)
    assert "relu_fp32" in {t.name for t in tasks}


def test_level1_covers_operator_families():
    tags = set().union(*(t.tags for t in builtin_tasks(level=1)))
    for family in ("elementwise", "activation", "reduction", "norm", "softmax", "matmul", "conv",
                   "pooling", "scan", "gather", "scatter"):
        assert family in tags, family


def test_fused_and_architecture_tasks_allow_library_gemms():
    for t in builtin_tasks(level=2) + builtin_tasks(level=3):
        if {"gemm", "conv", "matmul"} & set(t.tags):
            assert t.allowed_ops, t.name


@pytest.mark.parametrize("task", builtin_tasks(), ids=lambda t: t.name)
def test_builtin_task_is_valid(task):
    with single_thread():
        report = validate_task(task)
    assert report.ok, report.problems
    assert report.gpu_bytes is not None and report.gpu_bytes < 16 * 2**30
