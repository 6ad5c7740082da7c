"""A verifiers (prime-rl) environment: LEAP's kernel tasks, multi-turn, judged by LEAP's sandbox.

Written against verifiers' v1 API (``verifiers.v1``, verifiers >= 0.4): a `KernelTaskset` (one task per
LEAP task, its prompt the one LEAP's own rollouts use) and a `KernelEnv` whose ``run`` plays the user:
each assistant reply is verified in the sandbox and the verdict's feedback is the next user turn
(`env_response`), until the kernel is correct or ``max_turns`` replies were judged. Rewards
(`score_attempts`): ``reward: scalar`` records LEAP's scalar score of the best turn
(0.3·correct + speedup, `leap.algorithms.scalar`); ``reward: tournament`` plays ``group_size`` attempts
in one episode and records each one's tournament advantage (`leap.integrations.core.LeapGroupRewards`,
zero-sum inside the episode), since verifiers' own repeats (``-r``) are independent episodes that no
rubric sees together.

Entry points: ``vf-eval leap-vf`` (the installed top-level package ``leap_vf`` re-exports this module's
classes, as verifiers' loader wants) and `load_environment` for Python callers and prime-rl.
Differences from LEAP's own rollouts: verifiers' chat harness keeps the whole conversation (earlier
reasoning is not dropped) and the context is not trimmed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from typing import Literal

import verifiers.v1 as vf

from leap.algorithms.config import RewardConfig
from leap.algorithms.scalar import trajectory_reward
from leap.integrations.core import KernelJudge, LeapGroupRewards, trajectory
from leap.rollout.prompts import build_messages, feedback_message
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.suite import iter_task_source
from leap.tasks.task import Task

TASKSET_ID = "leap-vf"


class KernelData(vf.TaskData):
    """One LEAP task: its name and the task source it comes from (built-in split, file, folder)."""

    task: str
    source: str = "builtin:train"
    backend: str = "triton"


class KernelTask(vf.Task[KernelData, vf.State, vf.TaskConfig]):
    """Scored by `KernelEnv.run` (the verdicts are known only there)."""


class KernelTasksetConfig(vf.TasksetConfig):
    tasks: str = "builtin:train"
    """LEAP task source: builtin[:split], a task file, a folder or a KernelBench checkout."""
    task_filter: list[str] = []
    """Keep only these task names (empty = all)."""
    backend: Literal["triton", "cuda_inline", "cuda_nvrtc"] = "triton"
    """The kernel backend the prompt asks for and the sandbox verifies."""


class KernelTaskset(vf.Taskset[KernelTask, KernelTasksetConfig]):
    def load(self) -> Iterator[KernelTask]:
        keep = set(self.config.task_filter)
        for t in iter_task_source(self.config.tasks):
            if keep and t.name not in keep:
                continue
            system, user = build_messages(t, self.config.backend)
            yield KernelTask(KernelData(name=t.name, id=t.name, prompt=user["content"], system_prompt=system["content"],
                                        task=t.name, source=self.config.tasks, backend=self.config.backend),
                             self.config.task)


class KernelEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(harness={"id": "null"}, runtime={"type": "subprocess"})
    """The kernel writer: verifiers' tool-less chat harness, run locally (it executes no model code; the
    sandbox does), by default."""
    max_turns: int = 3
    """Replies judged per attempt (feedback turns after the first)."""
    reward: Literal["scalar", "tournament"] = "scalar"
    """scalar: LEAP's score of the best turn; tournament: rank `group_size` attempts against each other."""
    group_size: int = 1
    """Attempts per episode (tournament: >= 2)."""
    sandbox_url: str | None = None
    """A `leap sandbox serve` service to verify with (token: $LEAP_SANDBOX_TOKEN); None = a local sandbox."""
    device: str = "auto"
    """Local sandbox device (auto, cpu, cuda)."""


def env_response(verdict: Verdict, turn: int) -> str:
    """The user turn that follows reply ``turn`` (1-based): the sandbox's status and feedback."""
    return feedback_message(f"status: {verdict.status}\n{verdict.feedback}", turn)


def done(verdicts: Sequence[Verdict], max_turns: int) -> bool:
    """An attempt ends when its latest kernel is correct or ``max_turns`` replies were judged."""
    return bool(verdicts) and (verdicts[-1].correct or len(verdicts) >= max_turns)


def score_attempts(task: str, attempts: Sequence[tuple[Sequence[str], Sequence[Verdict]]],
                   kind: str = "scalar", reward: RewardConfig | None = None) -> list[dict[str, float]]:
    """Rewards and metrics of an episode's attempts (each: the replies and their verdicts, in turn order).

    ``scalar``: ``leap_score`` = the best turn's scalar score; ``tournament``: ``leap_tournament`` = the
    attempt's (wins - losses)/(G - 1) inside the episode (needs >= 2 attempts)."""
    reward = reward or RewardConfig()
    trajs = [trajectory(task, k, list(a), list(v)) for k, (a, v) in enumerate(attempts)]
    out = [{"leap_score": trajectory_reward(t, reward), "solved": float(t.solved),
            "solved_turn": float(t.solved_turn or 0), "turns": float(len(t.turns))} for t in trajs]
    if kind == "tournament":
        if len(trajs) < 2:
            raise ValueError("reward tournament: an episode needs group_size >= 2 attempts to rank")
        for row, (adv, _) in zip(out, LeapGroupRewards(reward=reward).compute_group_rewards(trajs), strict=True):
            row["leap_tournament"] = adv
    return out


class KernelEnv(vf.Env[KernelEnvConfig]):
    """The sandbox plays the user: each reply is verified and answered with the verdict's feedback."""

    judge: KernelJudge | None = None

    async def start(self) -> None:
        if self.judge is None:
            sandbox = None
            if self.config.sandbox_url:
                from leap.sandbox import RemoteSandbox

                sandbox = RemoteSandbox(self.config.sandbox_url)
            backend = getattr(self.taskset.config, "backend", "triton")
            self.judge = KernelJudge(sandbox, backend=backend, device=self.config.device)

    async def stop(self) -> None:
        if self.judge is not None:
            self.judge.close()
            self.judge = None

    def leap_task(self, data: KernelData) -> Task:
        """The LEAP `Task` a row names (cached by the judge)."""
        judge = self.judge
        if data.task not in judge._tasks:
            found = [t for t in iter_task_source(data.source) if t.name == data.task]
            if not found:
                raise ValueError(f"task {data.task!r} is not in {data.source}")
            judge._tasks[data.task] = found[0]
        return judge._tasks[data.task]

    async def _attempt(self, task: KernelTask, agents) -> tuple[object, list[str], list[Verdict]]:
        leap_task = self.leap_task(task.data)
        replies: list[str] = []
        verdicts: list[Verdict] = []
        async with agents.agent.interaction(task) as interaction:
            segment = await interaction.turn()
            while not segment.terminated:
                replies.append(segment.last_reply)
                verdicts.append(await asyncio.to_thread(self.judge.judge, leap_task, segment.last_reply))
                if done(verdicts, self.config.max_turns):
                    break
                segment = await interaction.turn(env_response(verdicts[-1], len(verdicts)))
        return interaction.trace, replies, verdicts

    async def run(self, task: KernelTask, agents) -> None:
        await self.start()
        n = max(1, self.config.group_size)
        attempts = [await self._attempt(task, agents) for _ in range(n)]
        rows = score_attempts(task.data.task, [(r, v) for _, r, v in attempts], self.config.reward)
        for (trace, _, verdicts), row in zip(attempts, rows, strict=True):
            main = "leap_tournament" if self.config.reward == "tournament" else "leap_score"
            trace.record_reward(main, row[main], 1.0)
            for key, value in row.items():
                if key != main:
                    trace.record_metric(key, value)
            trace.info["leap_statuses"] = [v.status for v in verdicts]


def load_environment(tasks: str = "builtin:train", *, task_filter: Sequence[str] = (), backend: str = "triton",
                     max_turns: int = 3, reward: str = "scalar", group_size: int = 1,
                     sandbox_url: str | None = None, device: str = "auto", model: str | None = None) -> KernelEnv:
    """The environment, built the way ``vf-eval leap-vf`` builds it (``model``: the agent's model name)."""
    agent = {"harness": {"id": "null"}, "runtime": {"type": "subprocess"}, **({"model": model} if model else {})}
    cfg = vf.resolve_env_config({"taskset": {"id": TASKSET_ID, "tasks": tasks, "task_filter": list(task_filter),
                                             "backend": backend},
                                 "agent": agent, "max_turns": max_turns, "reward": reward,
                                 "group_size": group_size, "sandbox_url": sandbox_url, "device": device})
    return vf.load_environment(cfg)
