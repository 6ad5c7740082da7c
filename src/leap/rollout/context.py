"""The multi-turn context policy (DESIGN.md §4).

Turn t+1 sees: the task messages of turn 1, then for each earlier turn its answer reduced to the code
block (reasoning and prose dropped) followed by the sandbox feedback on it. The context is bounded:
when it exceeds ``budget`` (characters, or tokens through ``count``), the oldest (answer, feedback)
pairs are dropped first; the task and the latest pair are always kept (the latest feedback is trimmed
from its middle as a last resort).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from leap.rollout.prompts import feedback_message
from leap.rollout.records import Message, Turn

NO_CODE = "(no python code block was found in this answer)"
DEFAULT_BUDGET = 24_000  # characters


def answer_as_code(code: str | None) -> str:
    """An earlier answer as it appears in later contexts: only its code block."""
    if not code:
        return NO_CODE
    return f"```python\n{code.rstrip()}\n```"


def _size(messages: Sequence[Message], count: Callable[[str], int]) -> int:
    return sum(count(m["content"]) for m in messages)


def _trim_middle(text: str, keep: int) -> str:
    if len(text) <= keep:
        return text
    half = max(keep // 2, 1)
    return text[:half] + "\n[... trimmed ...]\n" + text[-half:]


def next_messages(task_messages: Sequence[Message], turns: Sequence[Turn], *,
                  budget: int = DEFAULT_BUDGET, count: Callable[[str], int] = len) -> list[Message]:
    """The context for the turn after ``turns`` (each needs its code and verdict)."""
    if not turns:
        return [dict(m) for m in task_messages]
    pairs: list[tuple[Message, Message]] = []
    for t in turns:
        pairs.append(({"role": "assistant", "content": answer_as_code(t.code)},
                      {"role": "user", "content": feedback_message(t.verdict.feedback, t.index + 1)}))
    base = [dict(m) for m in task_messages]
    base_size = _size(base, count)
    kept = list(pairs)
    while len(kept) > 1 and base_size + sum(_size(p, count) for p in kept) > budget:
        kept.pop(0)
    out = base + [dict(m) for p in kept for m in p]
    over = _size(out, count) - budget
    if over > 0:  # only the task and the latest pair are left: trim the latest feedback
        fb = out[-1]["content"]
        out[-1]["content"] = _trim_middle(fb, max(len(fb) - over * max(len(fb) // max(count(fb), 1), 1), 200))
    return out
