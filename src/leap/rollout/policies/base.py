"""The policy interface and its records."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

Messages = list[dict[str, str]]


class PolicyError(RuntimeError):
    """A policy that cannot be loaded or reached; the message is one line."""


@dataclass(frozen=True)
class SamplingParams:
    """Sampling settings shared by every backend (temperature 0 = greedy)."""

    max_new_tokens: int = 1024
    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    stop: tuple[str, ...] = ()
    seed: int | None = None
    logprobs: bool = False


@dataclass
class Generation:
    """One completion. Token ids/logprobs are filled where the backend knows them (``None`` otherwise).

    ``logprobs`` are the sampled tokens' log-probabilities under the temperature-scaled distribution.
    """

    text: str
    prompt_ids: list[int] | None = None
    completion_ids: list[int] | None = None
    logprobs: list[float] | None = None
    finish_reason: str = "stop"
    prompt_tokens: int = 0
    completion_tokens: int = 0
    extra: dict = field(default_factory=dict)


class Policy(Protocol):
    """Anything that turns chat contexts into completions."""

    name: str

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]: ...


def cut_at_stop(text: str, stop: tuple[str, ...]) -> tuple[str, bool]:
    """``text`` up to (not including) the earliest stop string, and whether one was found."""
    cut = min((i for s in stop if s and (i := text.find(s)) >= 0), default=-1)
    return (text[:cut], True) if cut >= 0 else (text, False)
