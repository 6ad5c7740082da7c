"""What every adapter shares: a `KernelJudge` (answer text -> `Verdict` through a LEAP sandbox) and
`LeapGroupRewards`, the group-level hook (the shape of tinker-cookbook's
``EnvGroupBuilder.compute_group_rewards``) that hands the whole group to LEAP's tournament (or scalar
reward) and DCP at once. Rewards always come from `leap.algorithms`; nothing here re-ranks samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from leap.algorithms.config import DCPConfig, RewardConfig
from leap.algorithms.dcp import dcp_decide
from leap.algorithms.scalar import scalar_advantages, trajectory_reward
from leap.algorithms.tournament import tournament_advantages
from leap.rollout.extract import extract_code
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.suite import iter_task_source
from leap.tasks.task import Task

NO_CODE = ("No Python code block with `class ModelNew` was found. Answer with one ```python block "
           "that defines ModelNew.")


def resolve_task(task: Task | str) -> Task:
    """A `Task` as given, or the one task a built-in name / task file names."""
    if isinstance(task, Task):
        return task
    tasks = list(iter_task_source(str(task)))
    if len(tasks) != 1:
        raise ValueError(f"{task}: expected one task, found {len(tasks)}")
    return tasks[0]


class KernelJudge:
    """Answer text -> `Verdict`: extracts the code block and verifies it in a sandbox (a local
    `leap.sandbox.Sandbox` by default; any object with ``verify_many`` works, e.g. `RayExecutor`)."""

    def __init__(self, sandbox=None, *, backend: str = "triton", device: str = "auto", config=None):
        if sandbox is None:
            from leap.sandbox import Sandbox

            sandbox = Sandbox(config, device=device)
        self.sandbox, self.backend = sandbox, backend
        self._tasks: dict[str, Task] = {}

    def task(self, task: Task | str) -> Task:
        key = task.name if isinstance(task, Task) else str(task)
        if key not in self._tasks:
            self._tasks[key] = resolve_task(task)
        return self._tasks[key]

    def judge_many(self, tasks: Sequence[Task | str], answers: Sequence[str]) -> list[Verdict]:
        """One verdict per (task, answer text), in order; answers without code get ``format_error``."""
        out: list[Verdict | None] = [None] * len(answers)
        todo, where = [], []
        for i, (t, text) in enumerate(zip(tasks, answers, strict=True)):
            task = self.task(t)
            code = extract_code(text or "")
            if code is None:
                out[i] = Verdict(status="format_error", task=task.name, feedback=NO_CODE)
            else:
                todo.append((task, code))
                where.append(i)
        for j, v in self.sandbox.verify_many(todo, backend=self.backend):
            out[where[j]] = v
        return out  # type: ignore[return-value]

    def judge(self, task: Task | str, answer: str) -> Verdict:
        return self.judge_many([task], [answer])[0]

    def close(self) -> None:
        close = getattr(self.sandbox, "close", None)
        if close:
            close()


def trajectory(task: str, sample: int, answers: Sequence[str], verdicts: Sequence[Verdict],
               tokens: Sequence[int] | None = None) -> Trajectory:
    """A LEAP `Trajectory` from one sample's turns (answer texts, their verdicts, optional token counts)."""
    turns = [Turn(index=k, messages=[], completion=a, code=extract_code(a or ""), verdict=v,
                  completion_tokens=int(tokens[k]) if tokens else len(a or ""))
             for k, (a, v) in enumerate(zip(answers, verdicts, strict=True))]
    return Trajectory(task=task, sample=sample, turns=turns)


@dataclass
class LeapGroupRewards:
    """The group hook: ``compute_group_rewards(trajectories_G)`` -> one (reward, metrics) per member.

    ``kind='tournament'`` gives (wins - losses)/(G - 1) from `leap.algorithms.tournament`;
    ``'scalar'`` the group-normalised scalar score (`leap.algorithms.scalar`). `expand` is DCP's
    decision for the group (whether it deserves feedback turns).
    """

    kind: str = "tournament"
    reward: RewardConfig = field(default_factory=RewardConfig)
    dcp: DCPConfig = field(default_factory=DCPConfig)
    max_turns: int = 3

    def compute_group_rewards(self, trajectories_G: Sequence[Trajectory]) -> list[tuple[float, dict]]:
        group = Group(task=trajectories_G[0].task if trajectories_G else "", trajectories=list(trajectories_G))
        adv_G = (tournament_advantages(group, self.reward) if self.kind == "tournament"
                 else scalar_advantages(group, self.reward))
        return [(a, {"solved": float(t.solved), "solved_turn": float(t.solved_turn or 0),
                     "score": trajectory_reward(t, self.reward)}) for a, t in zip(adv_G, group.trajectories, strict=True)]

    def expand(self, trajectories_G: Sequence[Trajectory]) -> bool:
        group = Group(task=trajectories_G[0].task, trajectories=list(trajectories_G))
        return bool(dcp_decide([group], self.max_turns, self.dcp)[0])
