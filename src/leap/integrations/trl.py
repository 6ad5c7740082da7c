"""TRL adapters: a ``reward_funcs`` entry for `trl.GRPOTrainer` (single turn) and an environment class
for its ``environment_factory`` (multi-turn: the model calls a tool that submits a kernel and reads the
sandbox's feedback).

Reward: TRL hands a reward function the flattened batch (``num_generations`` consecutive completions per
prompt). `LeapReward` regroups completions that share a prompt and task, verifies them, and scores each
group with `LeapGroupRewards` (LEAP's tournament by default), so TRL's group normalisation sees LEAP's
ranking.
"""

from __future__ import annotations

from collections.abc import Sequence

from leap.algorithms.scalar import turn_score
from leap.integrations.core import KernelJudge, LeapGroupRewards, trajectory


def _text(completion) -> str:
    if isinstance(completion, str):
        return completion
    msgs = [m for m in completion if m.get("role") == "assistant"] or list(completion)
    return str(msgs[-1].get("content") or "") if msgs else ""


class LeapReward:
    """``reward_funcs=[LeapReward(judge)]``; the dataset needs a ``task`` column (built-in name or file)."""

    __name__ = "leap_reward"

    def __init__(self, judge: KernelJudge | None = None, hook: LeapGroupRewards | None = None,
                 length: str = "tokens"):
        """``length``: what the tournament's length tie-break counts, ``tokens`` (TRL's completion ids) or
        ``chars``."""
        self.length = length
        self.judge = judge or KernelJudge()
        self.hook = hook or LeapGroupRewards()
        self.last_verdicts: list = []

    def __call__(self, prompts: Sequence, completions: Sequence, task: Sequence[str] | None = None,
                 completion_ids: Sequence[Sequence[int]] | None = None, **kwargs) -> list[float]:
        if task is None:
            raise ValueError("LeapReward needs a 'task' column in the dataset (a built-in task name or task file)")
        texts = [_text(c) for c in completions]
        verdicts = self.judge.judge_many(list(task), texts)
        self.last_verdicts = verdicts
        groups: dict[tuple[str, str], list[int]] = {}
        for i, (p, t) in enumerate(zip(prompts, task, strict=True)):
            groups.setdefault((str(p), str(t)), []).append(i)
        rewards = [0.0] * len(texts)
        for (_, t), idx in groups.items():
            trajs = [trajectory(t, k, [texts[i]], [verdicts[i]],
                                [len(completion_ids[i])] if completion_ids is not None and self.length == "tokens"
                                else None)
                     for k, i in enumerate(idx)]
            for i, (r, _) in zip(idx, self.hook.compute_group_rewards(trajs), strict=True):
                rewards[i] = float(r)
        return rewards


class KernelEnvironment:
    """For ``GRPOTrainer(environment_factory=KernelEnvironment)``: one instance per rollout. `reset` gets
    the dataset row (its ``task`` column); the tool `submit_kernel` verifies code and returns feedback;
    `get_reward` is LEAP's scalar score of the best submission (TRL group-normalises it)."""

    judge: KernelJudge | None = None  # shared across instances (one warm sandbox); set before training

    def __init__(self):
        if KernelEnvironment.judge is None:
            KernelEnvironment.judge = KernelJudge()
        self.task, self.scores = None, []

    def reset(self, task: str | None = None, **row) -> None:
        self.task, self.scores = task, []
        return None

    def submit_kernel(self, code: str) -> str:
        """Submit a complete Python module that defines `ModelNew` (a Triton kernel) for verification.

        Args:
            code: The full Python source of the candidate module.

        Returns:
            The verifier's verdict and feedback for this submission.
        """
        if self.task is None:
            return "error: no task (the dataset row needs a 'task' column)"
        v = self.judge.judge(self.task, f"```python\n{code}\n```")
        self.scores.append(turn_score(v))
        return f"status: {v.status}\n{v.feedback}".strip()

    def get_reward(self) -> float:
        return max(self.scores, default=0.0)
