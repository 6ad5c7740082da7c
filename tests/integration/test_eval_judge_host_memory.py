"""A problem whose inputs or weights would not fit the judge's host is a `sandbox_error` for that problem,
decided from a meta-device plan before anything is allocated (an overcommitting host would otherwise let a
1 TiB ``torch.rand`` start and have the OS kill the whole evaluation); the evaluation goes on."""

from __future__ import annotations

import json

from sandbox_cases import kernels as K

from leap.evaluation.runner import EvalConfig, run_eval
from leap.rollout.episode import EpisodeConfig, sandbox_verifier
from leap.rollout.policies.base import Generation
from leap.sandbox import Sandbox
from leap.tasks.suite import get_builtin
from leap.tasks.task import parse_task

BASE = """import torch
import torch.nn as nn

class Model(nn.Module):
    def __init__(self):
        super().__init__()
{init}
    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.rand({n})]

def get_small_inputs():  # taken as it is on the CPU (no derived CPU size)
    return [torch.rand({n})]

def get_init_inputs():
    return []
"""
HUGE_INPUTS = BASE.format(init="", n="2 ** 38")  # 1 TiB of float32
HUGE_WEIGHTS = BASE.format(init="        self.w = nn.Parameter(torch.empty(2 ** 38))", n="1024")


class FixedAnswers:
    name = "fixed"

    def generate(self, prompts, params):
        return [Generation(text=f"```python\n{K.RELU}\n```", completion_tokens=1, prompt_tokens=1) for _ in prompts]


def test_eval_answers_sandbox_error_for_problems_too_large_for_the_host_and_goes_on(tmp_path):
    tasks = [parse_task(HUGE_INPUTS, "1_HugeInputs"), get_builtin("relu_fp32"),
             parse_task(HUGE_WEIGHTS, "2_HugeWeights")]
    cfg = EvalConfig(samples=1, turns=1, tasks_per_batch=1, episode=EpisodeConfig(max_turns=1, backend="triton"))
    with Sandbox(device="cpu") as sb:
        run_eval(FixedAnswers(), tasks, sandbox_verifier(sb, device="cpu"), tmp_path, cfg)
        why = {t.name: sb.verify(t, K.RELU, backend="triton") for t in (tasks[0], tasks[2])}
    rows = {r["task"]: r for r in map(json.loads, (tmp_path / "results.jsonl").read_text().splitlines())}
    assert rows["relu_fp32"]["status"] == "ok", rows["relu_fp32"]["verdict"]
    # 1 TiB of inputs a trial: the judge plans its trials in rounds of two (2, 2, 2), so the first round's two trials are refused
    for name, what in (("1_HugeInputs", "inputs need 2048.0 GiB"), ("2_HugeWeights", "Model weights need 1024.0 GiB")):
        assert rows[name]["status"] == "sandbox_error" and what in rows[name]["verdict"]["feedback"], rows[name]
        assert what in rows[name]["sandbox_detail"], rows[name]  # the judge's side, kept for the operator
        assert why[name].status == "sandbox_error" and what in why[name].detail, why[name]
