"""verl adapters: `compute_score` for verl's custom reward function hook
(``custom_reward_function.path=.../verl.py``, ``name=compute_score``) and `LeapInteraction` for verl's
multi-turn interaction system (``BaseInteraction``: ``start_interaction`` / ``generate_response`` /
``calculate_score`` / ``finalize_interaction``, all async).

verl is not a dependency: `LeapInteraction` subclasses verl's ``BaseInteraction`` when verl is importable
and a plain base otherwise (same methods).
"""

from __future__ import annotations

from typing import Any
from uuid import uuid4

from leap.algorithms.scalar import turn_score
from leap.integrations.core import KernelJudge

try:  # pragma: no cover - depends on the install
    from verl.interactions.base import BaseInteraction as _Base
except ImportError:  # verl not installed
    class _Base:  # type: ignore[no-redef]
        def __init__(self, config: dict[str, Any]):
            self.config = config
            self.name: str = config.get("name", "leap")

_JUDGE: KernelJudge | None = None


def _judge() -> KernelJudge:
    global _JUDGE
    if _JUDGE is None:
        _JUDGE = KernelJudge()
    return _JUDGE


def compute_score(data_source: str, solution_str: str, ground_truth: str, extra_info: dict | None = None,
                  **kwargs) -> dict:
    """verl's reward hook: ``ground_truth`` is the task (built-in name or task file). Returns
    ``{"score": LEAP scalar score, "status": ..., "correct": ...}`` (verl logs the extra keys)."""
    v = _judge().judge(ground_truth, solution_str)
    return {"score": turn_score(v), "status": v.status, "correct": float(v.correct)}


class LeapInteraction(_Base):
    """Multi-turn: each assistant turn's kernel is verified; the sandbox feedback is the next user turn.
    Ends the interaction when the kernel is correct or after ``max_turns`` (config) turns."""

    def __init__(self, config: dict[str, Any]):
        super().__init__(config)
        self.max_turns = int(config.get("max_turns", 3))
        self._state: dict[str, dict] = {}

    async def start_interaction(self, instance_id: str | None = None, ground_truth: str | None = None,
                                **kwargs) -> str:
        instance_id = instance_id or str(uuid4())
        self._state[instance_id] = {"task": ground_truth, "score": 0.0, "turns": 0}
        return instance_id

    async def generate_response(self, instance_id: str, messages: list[dict[str, Any]],
                                **kwargs) -> tuple[bool, str, float, dict[str, Any]]:
        st = self._state[instance_id]
        answer = next((m.get("content") or "" for m in reversed(messages) if m.get("role") == "assistant"), "")
        v = _judge().judge(st["task"], answer)
        st["turns"] += 1
        st["score"] = max(st["score"], turn_score(v))
        done = v.correct or st["turns"] >= self.max_turns
        return done, f"status: {v.status}\n{v.feedback}".strip(), turn_score(v), {"status": v.status}

    async def calculate_score(self, instance_id: str, **kwargs) -> float:
        return self._state[instance_id]["score"]

    async def finalize_interaction(self, instance_id: str, **kwargs) -> None:
        self._state.pop(instance_id, None)
