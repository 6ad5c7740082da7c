"""Multi-turn episodes of the tiny policy through the rollout package's runner
(`leap.rollout.episode.run_episodes`): the demo supplies its compact prompt (``prompt_fn``), a policy
adapter over `TinyPolicy`, a verdict-caching sandbox verifier, and DCP through ``dcp_continue``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import torch

from leap.algorithms.config import DCPConfig
from leap.demo.policy import TinyPolicy, build_prompt
from leap.rollout.episode import EpisodeConfig, dcp_continue, run_episodes
from leap.rollout.policies.base import Generation, SamplingParams
from leap.rollout.records import Group, Turn
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task


@dataclass
class Spend:
    """Sandbox work: ``requested`` = evaluations the algorithm asked for (the number DCP saves);
    ``executed`` = those actually run (identical (task, code) pairs are verified once per run)."""

    requested: int = 0
    executed: int = 0
    generate_s: float = 0.0
    sandbox_s: float = 0.0


@dataclass
class Verifier:
    """Verifies (task, code) pairs with a `leap.sandbox.Sandbox`, remembering verdicts per run."""

    sandbox: object
    cache: dict[tuple[str, str], Verdict] = field(default_factory=dict)
    spend: Spend = field(default_factory=Spend)
    log: Callable[[str], None] | None = None  # a progress line at most every `every_s` seconds
    every_s: float = 10.0

    def verify(self, pairs: Sequence[tuple[Task, str | None]]) -> list[Verdict]:
        t0 = time.perf_counter()
        self.spend.requested += len(pairs)
        out: list[Verdict | None] = [None] * len(pairs)
        todo: dict[tuple[str, str], list[int]] = {}
        for i, (task, code) in enumerate(pairs):
            if code is None:
                out[i] = Verdict(status="format_error", task=task.name,
                                 feedback="No code block found in the answer.")
                continue
            key = (task.name, code)
            if key in self.cache:
                out[i] = self.cache[key]
            else:
                todo.setdefault(key, []).append(i)
        keys = list(todo)
        if keys:
            tasks = {pairs[ix[0]][0].name: pairs[ix[0]][0] for ix in todo.values()}
            jobs = [(tasks[name], code) for name, code in keys]
            shown = t0
            for n, (j, verdict) in enumerate(self.sandbox.verify_many(jobs), 1):
                now = time.perf_counter()
                if self.log is not None and now - shown >= self.every_s and n < len(jobs):
                    self.log(f"  sandbox: {n}/{len(jobs)} candidates verified ({now - t0:.0f}s)")
                    shown = now
                self.cache[keys[j]] = verdict
                for i in todo[keys[j]]:
                    out[i] = verdict
            self.spend.executed += len(keys)
        self.spend.sandbox_s += time.perf_counter() - t0
        missing = sum(v is None for v in out)
        if missing:
            raise RuntimeError(f"sandbox returned no verdict for {missing} candidates")
        return out  # type: ignore[return-value]


class CompactPolicy:
    """`leap.rollout` policy over a `TinyPolicy`: the context's last user message is the raw prompt text."""

    name = "tiny-demo"

    def __init__(self, policy: TinyPolicy, spend: Spend):
        self.policy, self.spend = policy, spend

    def generate(self, prompts: list[list[dict]], params: SamplingParams) -> list[Generation]:
        t0 = time.perf_counter()
        if params.seed is not None:  # the trainer seeds every generate call (resumable, thread-order free)
            torch.manual_seed(params.seed)
        gens = self.policy.generate([m[-1]["content"] for m in prompts], temperature=params.temperature,
                                    max_new_tokens=params.max_new_tokens)
        self.spend.generate_s += time.perf_counter() - t0
        return [Generation(text=text, prompt_ids=pids, completion_ids=cids, prompt_tokens=len(pids),
                           completion_tokens=len(cids)) for pids, cids, text in gens]


def compact_prompt_fn(specs: dict[str, str]):
    """``prompt_fn`` for the runner: the task's op lines, plus the last answer and its feedback."""
    def prompt(task: Task, turns: list[Turn]) -> list[dict]:
        history = [(t.code or t.completion, t.verdict.feedback) for t in turns]
        return [{"role": "user", "content": build_prompt(specs[task.name], history)}]
    return prompt


def run_groups(policy: TinyPolicy, tasks: Sequence[Task], specs: Sequence[str], verifier: Verifier, *,
               group_size: int, max_turns: int, dcp: DCPConfig, temperature: float = 1.0,
               max_new_tokens: int = 64) -> list[Group]:
    """Sample a group of ``group_size`` trajectories per task; DCP decides which groups get more turns."""
    cfg = EpisodeConfig(max_turns=max_turns, prompt_fn=compact_prompt_fn(
        {t.name: s for t, s in zip(tasks, specs, strict=True)}),
        params=SamplingParams(max_new_tokens=max_new_tokens, temperature=temperature))
    return run_episodes(CompactPolicy(policy, verifier.spend), tasks, group_size, verifier.verify, cfg,
                        continue_batch=dcp_continue(max_turns, dcp))


def acc_at_turns(groups: Sequence[Group], max_turns: int) -> list[float]:
    """Acc@turn k (k = 1..max_turns) of rollout groups: `leap.evaluation.metrics.acc_at_turn`."""
    from leap.evaluation.metrics import acc_at_turn, results_from_groups

    return acc_at_turn(results_from_groups(groups), max_turns)


def spec_from_source(source: str) -> str:
    """The compact spec (``compact_spec``) of a demo task file: the op lines of ``Model.forward``.
    Raises ValueError for a file that is not one of the demo's elementwise chains."""
    import ast

    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Model":
            for fn in node.body:
                if isinstance(fn, ast.FunctionDef) and fn.name == "forward":
                    lines = [ast.get_source_segment(source, s) for s in fn.body if isinstance(s, ast.Assign)]
                    if lines and all(lines):
                        return "\n".join(lines)
    raise ValueError("not a demo task (expected class Model whose forward is a chain of `x = ...` lines)")


def chat_prompt_fn(specs: dict[str, str]):
    """``prompt_fn`` for a saved demo policy driven through chat messages (`leap eval --prompt demo`): the
    task's op lines, then the last answer and the gist of its feedback — the layout the policy was trained
    on, rendered by its chat template (`leap.demo.policy.CHAT_TEMPLATE`)."""
    from leap.demo.policy import first_sentence

    def prompt(task: Task, turns: list[Turn]) -> list[dict]:
        msgs = [{"role": "user", "content": specs[task.name]}]
        if turns:
            last = turns[-1]
            msgs += [{"role": "assistant", "content": last.code or last.completion},
                     {"role": "user", "content": first_sentence(last.verdict.feedback)}]
        return msgs
    return prompt
