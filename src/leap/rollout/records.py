"""Typed records that flow from generation to training: `Turn`, `Trajectory`, `Group`."""

from __future__ import annotations

from pydantic import BaseModel, Field

from leap.sandbox.judge.verdict import Verdict

Message = dict[str, str]  # {"role": "system"|"user"|"assistant", "content": "..."}


class Turn(BaseModel):
    """One policy answer and its verdict. ``index`` is 0-based (turn 1 has index 0).

    ``messages`` is the exact context the policy saw (chat messages, earlier reasoning already
    dropped); ``completion`` is what it wrote; ``code`` the extracted candidate (None if none found).
    Token ids are filled by backends that know them (the in-process HF policy) so the trainer can
    score the same tokens that were sampled.
    """

    index: int
    messages: list[Message]
    completion: str
    code: str | None = None
    verdict: Verdict
    prompt_tokens: int = 0
    completion_tokens: int = 0
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    completion_logprobs: list[float] | None = None

    @property
    def solved(self) -> bool:
        return self.verdict.correct


class Trajectory(BaseModel):
    """All turns of one sample of one task, in order."""

    task: str
    sample: int
    turns: list[Turn] = Field(default_factory=list)

    @property
    def solved_turn(self) -> int | None:
        """1-based index of the first correct turn, or None."""
        for t in self.turns:
            if t.solved:
                return t.index + 1
        return None

    @property
    def solved(self) -> bool:
        return self.solved_turn is not None

    @property
    def last_verdict(self) -> Verdict | None:
        return self.turns[-1].verdict if self.turns else None

    @property
    def completion_tokens(self) -> int:
        return sum(t.completion_tokens for t in self.turns)


class Group(BaseModel):
    """G trajectories of one task, sampled together (the unit of GRPO and of DCP)."""

    task: str
    trajectories: list[Trajectory]
    expanded: bool = False

    @property
    def size(self) -> int:
        return len(self.trajectories)

    def n_failed_first_turn(self) -> int:
        return sum(1 for tr in self.trajectories if not (tr.turns and tr.turns[0].solved))
