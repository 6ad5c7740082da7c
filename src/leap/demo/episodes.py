"""Multi-turn episodes of the tiny policy: sample, verify in the sandbox, let DCP pick the groups that
earn feedback turns, and give failing samples of those groups further turns.

TEMPORARY: this is the demo's own small episode runner for the compact prompt format of the tiny policy;
it will be replaced by the rollout package's runner once that accepts a custom prompt builder.
The DCP decisions and statistics come from `leap.algorithms.dcp`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from leap.algorithms.config import DCPConfig
from leap.algorithms.dcp import dcp_decide, needs_turn
from leap.demo.policy import TinyPolicy, build_prompt, extract_code
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.verdict import Verdict
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
            for j, verdict in self.sandbox.verify_many(jobs):
                self.cache[keys[j]] = verdict
                for i in todo[keys[j]]:
                    out[i] = verdict
            self.spend.executed += len(keys)
        self.spend.sandbox_s += time.perf_counter() - t0
        missing = sum(v is None for v in out)
        if missing:
            raise RuntimeError(f"sandbox returned no verdict for {missing} candidates")
        return out  # type: ignore[return-value]


def _turns(policy: TinyPolicy, prompts: list[str], index: int, temperature: float, max_new_tokens: int,
           spend: Spend) -> list[Turn]:
    t0 = time.perf_counter()
    gens = policy.generate(prompts, temperature=temperature, max_new_tokens=max_new_tokens)
    spend.generate_s += time.perf_counter() - t0
    turns = []
    for prompt, (pids, cids, text) in zip(prompts, gens, strict=True):
        turns.append(Turn(index=index, messages=[{"role": "user", "content": prompt}], completion=text,
                          code=extract_code(text), verdict=Verdict(status="format_error"),
                          prompt_tokens=len(pids), completion_tokens=len(cids),
                          prompt_ids=pids, completion_ids=cids))
    return turns


def run_groups(policy: TinyPolicy, tasks: Sequence[Task], specs: Sequence[str], verifier: Verifier, *,
               group_size: int, max_turns: int, dcp: DCPConfig, temperature: float = 1.0,
               max_new_tokens: int = 64) -> list[Group]:
    """Sample a group of ``group_size`` trajectories per task; DCP decides which groups get more turns."""
    spend = verifier.spend
    prompts = [build_prompt(spec) for spec in specs for _ in range(group_size)]
    first = _turns(policy, prompts, 0, temperature, max_new_tokens, spend)
    flat_tasks = [t for t in tasks for _ in range(group_size)]
    for turn, v in zip(first, verifier.verify([(t, tr.code) for t, tr in zip(flat_tasks, first, strict=False)]), strict=True):
        turn.verdict = v
    groups = []
    for gi, task in enumerate(tasks):
        trajs = [Trajectory(task=task.name, sample=s, turns=[first[gi * group_size + s]])
                 for s in range(group_size)]
        groups.append(Group(task=task.name, trajectories=trajs))
    for g, e in zip(groups, dcp_decide(groups, max_turns, dcp), strict=True):
        g.expanded = e
    for index in range(1, max_turns):
        live = [(gi, tr) for gi, g in enumerate(groups) if g.expanded for tr in g.trajectories
                if needs_turn(tr, max_turns, dcp)]
        if not live:
            break
        prompts = [build_prompt(specs[gi], [(t.code or t.completion, t.verdict.feedback) for t in tr.turns])
                   for gi, tr in live]
        new = _turns(policy, prompts, index, temperature, max_new_tokens, spend)
        verdicts = verifier.verify([(tasks[gi], t.code) for (gi, _), t in zip(live, new, strict=True)])
        for (_, tr), turn, v in zip(live, new, verdicts, strict=True):
            turn.verdict = v
            tr.turns.append(turn)
    return groups


def acc_at_turns(groups: Sequence[Group], max_turns: int) -> list[float]:
    """Acc@turn k (k = 1..max_turns): fraction of trajectories solved by turn k."""
    trajs = [tr for g in groups for tr in g.trajectories]
    if not trajs:
        return [0.0] * max_turns
    return [sum(1 for tr in trajs if tr.solved_turn is not None and tr.solved_turn <= k) / len(trajs)
            for k in range(1, max_turns + 1)]
