"""The multi-turn episode runner (DESIGN.md §4, §5).

For a batch of groups (task × G samples): generate turn 1 for all, verify every candidate, ask a
per-group hook ``continue_fn(group) -> list[bool]`` which samples continue (DCP plugs in here; default:
the failing ones), then run feedback turns up to ``max_turns`` for continuing samples that still fail.
Every turn of every sample is generated in one policy batch and verified in one sandbox batch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from leap.rollout.context import DEFAULT_BUDGET, next_messages
from leap.rollout.extract import extract_code
from leap.rollout.policies.base import Generation, Policy, SamplingParams
from leap.rollout.prompts import build_messages
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task

Verifier = Callable[[list[tuple[Task, str]]], list[Verdict]]
ContinueFn = Callable[[Group], list[bool]]
PromptFn = Callable[[Task, list[Turn]], list[dict]]  # (task, turns so far) -> the next turn's context
BatchContinueFn = Callable[[list[Group]], list[list[bool]]]
NO_CODE_FEEDBACK = ("No solution was found: the answer must end with the complete solution in one "
                    "```python block defining class ModelNew.")


def sandbox_verifier(sandbox, backend: str = "auto", device: str = "auto") -> Verifier:
    """A `Verifier` over a `leap.sandbox.Sandbox` (concurrent ``verify_many``, results in input order)."""
    def verify(pairs: list[tuple[Task, str]]) -> list[Verdict]:
        out: list[Verdict | None] = [None] * len(pairs)
        for i, v in sandbox.verify_many(pairs, backend=backend, device=device):
            out[i] = v
        return [v if v is not None else Verdict(status="runtime_error", feedback="The sandbox gave no verdict.")
                for v in out]
    return verify


def default_continue(group: Group) -> list[bool]:
    """Continue every sample whose turn 1 failed."""
    return [not tr.solved for tr in group.trajectories]


def dcp_continue(max_turns: int, cfg=None) -> BatchContinueFn:
    """A batch-level hook applying DCP (`leap.algorithms.dcp`): the gate (and budget mode) picks the
    groups to expand; inside them, `needs_turn` picks the samples."""
    from leap.algorithms.dcp import dcp_decide, needs_turn

    def decide(groups: list[Group]) -> list[list[bool]]:
        expand = dcp_decide(groups, max_turns, cfg)
        return [[e and needs_turn(tr, max_turns, cfg) for tr in g.trajectories]
                for g, e in zip(groups, expand, strict=True)]
    return decide


@dataclass
class EpisodeConfig:
    """How episodes run: turns, kernel backend for the prompt, sampling, context budget."""

    max_turns: int = 3
    backend: str = "triton"
    params: SamplingParams = field(default_factory=SamplingParams)
    context_budget: int = DEFAULT_BUDGET
    keep_solved: bool = False  # continuing samples that are already correct keep optimising speed
    prompt_fn: PromptFn | None = None  # a custom context builder (e.g. a tiny policy's compact prompt)


@dataclass
class EpisodeStats:
    """What a batch of episodes cost."""

    generations: int = 0
    sandbox_evals: int = 0
    groups_expanded: int = 0


def no_code_verdict(task: Task) -> Verdict:
    return Verdict(status="format_error", feedback=NO_CODE_FEEDBACK, task=task.name)


def _make_turn(index: int, messages: list[dict], gen: Generation, verdict: Verdict | None) -> Turn:
    code = extract_code(gen.text)
    return Turn(index=index, messages=messages, completion=gen.text, code=code,
                verdict=verdict or Verdict(status="format_error", feedback=NO_CODE_FEEDBACK),
                prompt_tokens=gen.prompt_tokens, completion_tokens=gen.completion_tokens,
                prompt_ids=gen.prompt_ids, completion_ids=gen.completion_ids, completion_logprobs=gen.logprobs)


def _step(policy: Policy, verifier: Verifier, jobs: list[tuple[Trajectory, Task, list[dict]]],
          params: SamplingParams, stats: EpisodeStats) -> None:
    """Generate one turn for each job, verify the candidates, append the turns."""
    if not jobs:
        return
    gens = policy.generate([m for _, _, m in jobs], params)
    stats.generations += len(gens)
    codes = [extract_code(g.text) for g in gens]
    pairs = [(task, code) for (_, task, _), code in zip(jobs, codes, strict=True) if code]
    verdicts = iter(verifier(pairs) if pairs else [])
    stats.sandbox_evals += len(pairs)
    for (traj, task, msgs), gen, code in zip(jobs, gens, codes, strict=True):
        v = next(verdicts) if code else no_code_verdict(task)
        traj.turns.append(_make_turn(len(traj.turns), msgs, gen, v))


def run_episodes(policy: Policy, tasks: Sequence[Task], samples: int | Sequence[Sequence[int]], verifier: Verifier,
                 config: EpisodeConfig | None = None, *, continue_fn: ContinueFn | None = None,
                 continue_batch: BatchContinueFn | None = None,
                 on_turn: Callable[[int, int], None] | None = None,
                 stats: EpisodeStats | None = None) -> list[Group]:
    """Run multi-turn episodes; returns one `Group` per task (trajectories in sample order).

    ``samples`` is G (samples 0..G-1 of every task) or, per task, the sample indices to run (a
    resumed evaluation runs only the missing ones). ``continue_fn`` decides per group, ``continue_batch``
    (e.g. `dcp_continue`) for all groups at once. ``on_turn(turn_index, n_generated)`` reports progress.
    """
    cfg = config or EpisodeConfig()
    stats = stats if stats is not None else EpisodeStats()
    cont = continue_fn or default_continue
    ids = [list(range(samples))] * len(tasks) if isinstance(samples, int) else [list(s) for s in samples]
    if len(ids) != len(tasks):
        raise ValueError(f"samples: expected one list of sample indices per task ({len(tasks)}), got {len(ids)}")
    task_msgs = [cfg.prompt_fn(t, []) if cfg.prompt_fn else build_messages(t, cfg.backend) for t in tasks]
    groups = [Group(task=t.name, trajectories=[Trajectory(task=t.name, sample=s) for s in sids])
              for t, sids in zip(tasks, ids, strict=True)]
    jobs = [(tr, t, task_msgs[i]) for i, (t, g) in enumerate(zip(tasks, groups, strict=True))
            for tr in g.trajectories]
    _step(policy, verifier, jobs, cfg.params, stats)
    if on_turn:
        on_turn(0, len(jobs))
    going: list[tuple[Trajectory, Task, int]] = []
    batch_flags = continue_batch(groups) if continue_batch else [cont(g) for g in groups]
    for i, (t, g) in enumerate(zip(tasks, groups, strict=True)):
        flags = batch_flags[i]
        if len(flags) != g.size:
            raise ValueError(f"continue_fn returned {len(flags)} flags for a group of {g.size}")
        g.expanded = any(flags) and cfg.max_turns > 1
        stats.groups_expanded += int(g.expanded)
        going += [(tr, t, i) for tr, f in zip(g.trajectories, flags, strict=True) if f]
    for turn in range(1, cfg.max_turns):
        going = [(tr, t, i) for tr, t, i in going if cfg.keep_solved or not tr.solved]
        if not going:
            break
        jobs = [(tr, t, cfg.prompt_fn(t, tr.turns) if cfg.prompt_fn
                 else next_messages(task_msgs[i], tr.turns, budget=cfg.context_budget)) for tr, t, i in going]
        _step(policy, verifier, jobs, cfg.params, stats)
        if on_turn:
            on_turn(turn, len(jobs))
    return groups
