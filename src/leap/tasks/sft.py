"""Cold-start SFT pairs: (rollout prompt, template solution) rows, each verified by the sandbox first.

A row is ``{task_id, prompt, answer, verdict}``; ``prompt`` is exactly what the rollout sends
(`leap.rollout.prompts.build_messages(task, "triton")`), ``answer`` ends with the solution in a fenced
python block (the rollout's extractor takes the last one). Unverified pairs are never written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from leap.durable import atomic_write_jsonl
from leap.tasks.task import Task, TaskError

BACKEND = "triton"
ANSWER_LEAD = ("The whole computation runs in one Triton kernel: each program handles one row, "
               "loads it once, computes in fp32 and stores the result once.")


@dataclass
class SftStats:
    verified: int = 0
    written: int = 0
    statuses: dict[str, int] = field(default_factory=dict)


def prompt_builder() -> Callable[[Task, str], list[dict]]:
    """The rollout's prompt builder (one clear error if the rollout part is not installed)."""
    try:
        from leap.rollout.prompts import build_messages
    except ImportError as exc:
        raise TaskError(f"leap.rollout.prompts.build_messages is not available ({exc}); "
                        "SFT prompts must use the rollout's own format") from None
    return build_messages


def answer_text(solution: str) -> str:
    return f"{ANSWER_LEAD}\n\n```python\n{solution.rstrip()}\n```\n"


def sft_row(task: Task, solution: str, verdict, build: Callable[[Task, str], list[dict]]) -> dict:
    return {"task_id": task.name, "prompt": build(task, BACKEND), "answer": answer_text(solution),
            "verdict": verdict.public_dict() if hasattr(verdict, "public_dict") else dict(verdict)}


def write_sft(pairs: Iterable[tuple[Task, str]], path: str | Path, *, device: str = "auto",
              on_verdict: Callable[[int, object], None] | None = None) -> SftStats:
    """Verify every (task, solution) pair with the sandbox; write the passing ones as JSONL rows."""
    from leap.sandbox import verify_many

    build = prompt_builder()
    pairs = list(pairs)
    stats = SftStats()
    rows: dict[int, dict] = {}
    for i, verdict in verify_many(pairs, backend=BACKEND, device=device):
        stats.verified += 1
        stats.statuses[verdict.status] = stats.statuses.get(verdict.status, 0) + 1
        if verdict.status == "ok" and verdict.correct:
            rows[i] = sft_row(pairs[i][0], pairs[i][1], verdict, build)
        if on_verdict:
            on_verdict(i, verdict)
    atomic_write_jsonl(path, [rows[i] for i in sorted(rows)])
    stats.written = len(rows)
    return stats
