"""`leap eval` and the judge's GPU memory (issue 14): the judge shares the eval's process, so after each
verification batch its cached GPU memory goes back to the driver before the next generation, and a problem
too large for the GPU is a `sandbox_error` for that problem while the evaluation goes on.
Run: pytest -q -m gpu tests/gpu/test_eval_judge_memory_gpu.py"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from sandbox_cases import kernels as K  # noqa: E402

from leap.evaluation.runner import EvalConfig, run_eval  # noqa: E402
from leap.rollout.episode import EpisodeConfig, sandbox_verifier  # noqa: E402
from leap.rollout.policies.base import Generation  # noqa: E402
from leap.sandbox import Sandbox  # noqa: E402
from leap.tasks.suite import get_builtin  # noqa: E402
from leap.tasks.task import parse_task  # noqa: E402

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")]

# a KernelBench-shaped problem whose inputs (2**38 floats = 1 TiB) no GPU holds
HUGE = """import torch
import torch.nn as nn

n = 2 ** 38

class Model(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.rand(n)]

def get_init_inputs():
    return []
"""


class FixedAnswers:
    """A policy that answers every prompt with the same correct ReLU kernel; records the judge's cached
    but unallocated GPU memory at each generate call."""

    name = "fixed"

    def __init__(self):
        self.spare_at_generate: list[int] = []

    def generate(self, prompts, params):
        if torch.cuda.is_initialized():
            self.spare_at_generate.append(torch.cuda.memory_reserved() - torch.cuda.memory_allocated())
        return [Generation(text=f"```python\n{K.RELU}\n```", completion_tokens=1, prompt_tokens=1) for _ in prompts]


def test_eval_releases_judge_memory_and_survives_a_too_large_problem(tmp_path):
    relu = get_builtin("relu_fp32")
    huge = parse_task(HUGE, "1_HugeReLU")
    tasks = [relu, huge, get_builtin("relu_fp32").model_copy(update={"name": "relu_again"})]
    policy = FixedAnswers()
    cfg = EvalConfig(samples=1, turns=1, tasks_per_batch=1, episode=EpisodeConfig(max_turns=1, backend="triton"))
    with Sandbox(device="cuda") as sb:
        summary = run_eval(policy, tasks, sandbox_verifier(sb, device="cuda"), tmp_path, cfg)
    rows = {json.loads(line)["task"]: json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()}
    assert rows["1_HugeReLU"]["status"] == "sandbox_error", rows["1_HugeReLU"]["verdict"]
    assert rows["relu_fp32"]["status"] == "ok" and rows["relu_again"]["status"] == "ok"  # the eval went on
    assert summary["kernelbench"]["problems"] == 3
    # before the 2nd and 3rd generations the judge's cache was handed back (at most 64 MiB left cached)
    assert len(policy.spare_at_generate) >= 2 and max(policy.spare_at_generate[1:]) < 64 * 2**20, \
        policy.spare_at_generate
