"""Multi-turn context policy: reasoning dropped, code + feedback kept, bounded size."""

from __future__ import annotations

from leap.rollout.context import NO_CODE, next_messages
from leap.rollout.records import Turn
from leap.sandbox.judge.verdict import Verdict

TASK = [{"role": "system", "content": "sys"}, {"role": "user", "content": "TASK " * 50}]


def _turn(i: int, code: str | None, fb: str) -> Turn:
    return Turn(index=i, messages=TASK, completion=f"<think>secret {i}</think>prose {i}\n```python\n{code}\n```",
                code=code, verdict=Verdict(status="incorrect", feedback=fb))


def test_first_turn_is_task_only():
    assert next_messages(TASK, []) == TASK


def test_reasoning_dropped_code_and_feedback_kept():
    turns = [_turn(0, "code_a = 1", "mismatch A"), _turn(1, None, "format B")]
    msgs = next_messages(TASK, turns)
    assert msgs[:2] == TASK
    assert [m["role"] for m in msgs[2:]] == ["assistant", "user", "assistant", "user"]
    joined = "\n".join(m["content"] for m in msgs)
    assert "secret" not in joined and "prose" not in joined
    assert "code_a = 1" in msgs[2]["content"] and "mismatch A" in msgs[3]["content"]
    assert msgs[4]["content"] == NO_CODE and "format B" in msgs[5]["content"]
    assert "turn-2" in msgs[5]["content"]


def test_budget_drops_oldest_first_keeps_task_and_latest():
    turns = [_turn(i, f"code_{i} = 0\n" + "x" * 400, f"fb {i}") for i in range(6)]
    full = next_messages(TASK, turns, budget=10**9)
    small = next_messages(TASK, turns, budget=1500)
    assert len(full) == 2 + 12
    assert sum(len(m["content"]) for m in small) <= 1500
    assert small[:2] == TASK
    assert "code_5" in small[-2]["content"] and "fb 5" in small[-1]["content"]
    assert "code_0" not in "".join(m["content"] for m in small)
    # pairs stay aligned: assistant then user
    assert [m["role"] for m in small[2:]] == ["assistant", "user"] * ((len(small) - 2) // 2)


def test_budget_with_token_counter_and_huge_feedback():
    turns = [_turn(0, "c = 1", "E" * 20000)]
    msgs = next_messages(TASK, turns, budget=3000)
    assert sum(len(m["content"]) for m in msgs) <= 3000 + 300
    assert "trimmed" in msgs[-1]["content"]
    words = next_messages(TASK, [_turn(0, "c = 1", "w " * 50)] * 3, budget=200, count=lambda s: len(s.split()))
    assert len(words) == 4
