"""Expert iteration and a curriculum from a model's own samples (`leap eval` results on train tasks).

* `pass_rates`: per task, the fraction of samples solved by turn ``turn`` — the histogram shows whether
  GRPO has groups to learn from (pass rate strictly between 0 and 1), and `filter_by_pass_rate` keeps
  only those tasks for the RL pool.
* `harvest`: the sandbox-verified correct answers as SFT rows (rejection sampling). A turn-1 success is
  ``{prompt: the rollout prompt, answer: the completion}``; a success after failures is a multi-turn
  repair example whose prompt is the exact context the policy saw (task, its wrong answers, their real
  sandbox feedback). Duplicates (same task, same code up to whitespace) are dropped; tasks of an eval
  split are never used.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from leap.tasks.task import Task, TaskError


@dataclass
class HarvestStats:
    correct_turns: int = 0
    written: int = 0
    duplicates: int = 0
    eval_refused: int = 0
    unknown_task: int = 0
    repairs: int = 0
    per_task: dict[str, int] = field(default_factory=dict)

    @property
    def dedup_rate(self) -> float:
        seen = self.written + self.duplicates
        return self.duplicates / seen if seen else 0.0


def _samples(rows: Sequence[Mapping]) -> dict[tuple[str, int], list[Mapping]]:
    out: dict[tuple[str, int], list[Mapping]] = {}
    for r in rows:
        out.setdefault((r["task"], int(r["sample"])), []).append(r)
    return {k: sorted(v, key=lambda r: int(r["turn"])) for k, v in out.items()}


def pass_rates(rows: Sequence[Mapping], turn: int = 1) -> dict[str, dict]:
    """``task -> {samples, solved, rate}``: a sample counts as solved if a turn <= ``turn`` is correct."""
    acc: dict[str, list[int]] = {}
    for (task, _), turns in _samples(rows).items():
        ok = any(r.get("correct") for r in turns if int(r["turn"]) <= turn)
        acc.setdefault(task, []).append(int(ok))
    return {t: {"samples": len(v), "solved": sum(v), "rate": sum(v) / len(v)} for t, v in sorted(acc.items())}


def rate_histogram(rates: Mapping[str, Mapping]) -> dict[str, int]:
    """Tasks per pass-rate bin: ``0``, ``(0,0.25]``, ``(0.25,0.5]``, ``(0.5,0.75]``, ``(0.75,1)``, ``1``."""
    bins = {"0": 0, "(0,0.25]": 0, "(0.25,0.5]": 0, "(0.5,0.75]": 0, "(0.75,1)": 0, "1": 0}
    for r in rates.values():
        p = r["rate"]
        key = ("0" if p == 0 else "1" if p == 1 else "(0,0.25]" if p <= 0.25 else "(0.25,0.5]" if p <= 0.5
               else "(0.5,0.75]" if p <= 0.75 else "(0.75,1)")
        bins[key] += 1
    return bins


def write_pass_rates(rates: Mapping[str, Mapping], out_json: str | Path, png: str | Path | None = None,
                     title: str = "") -> dict:
    """Write ``{tasks, histogram, learnable, rates}`` as JSON and (optionally) a labelled bar chart."""
    hist = rate_histogram(rates)
    doc = {"title": title, "tasks": len(rates), "histogram": hist,
           "learnable": sum(1 for r in rates.values() if 0 < r["rate"] < 1), "rates": dict(rates)}
    Path(out_json).parent.mkdir(parents=True, exist_ok=True)
    Path(out_json).write_text(json.dumps(doc, indent=2) + "\n")
    if png:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(6, 3.5))
        ax.bar(list(hist), list(hist.values()), color=["#999"] + ["#3a7"] * 4 + ["#37a"])
        ax.set_xlabel("pass rate over k samples (turn 1)")
        ax.set_ylabel("train tasks")
        ax.set_title(title or f"{len(rates)} tasks, {doc['learnable']} with 0 < pass rate < 1")
        fig.tight_layout()
        fig.savefig(png, dpi=110)
        plt.close(fig)
    return doc


def load_pass_rates(path: str | Path) -> dict[str, float]:
    """``task -> rate`` from a `write_pass_rates` JSON; `TaskError` (one line) if unreadable."""
    try:
        doc = json.loads(Path(path).read_text())
        return {t: float(r["rate"]) for t, r in doc["rates"].items()}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise TaskError(f"{path}: not a pass-rate file ({exc.__class__.__name__})") from None


def filter_by_pass_rate(tasks: Sequence[Task], rates: Mapping[str, float], low: float = 0.0,
                        high: float = 1.0) -> list[Task]:
    """Tasks measured with ``low < rate < high`` (unmeasured tasks are dropped)."""
    return [t for t in tasks if t.name in rates and low < rates[t.name] < high]


def code_key(task: str, code: str) -> str:
    norm = "\n".join(ln.rstrip() for ln in code.strip().splitlines() if ln.strip())
    return hashlib.sha256(f"{task}\0{norm}".encode()).hexdigest()


def harvest(rows: Sequence[Mapping], tasks: Mapping[str, Task],
            build: Callable[[Task, str], list[dict]], backend: str = "triton",
            repairs: bool = True) -> tuple[list[dict], HarvestStats]:
    """SFT rows from the correct turns of `leap eval` ``rows`` (see the module docstring)."""
    from leap.rollout.context import next_messages
    from leap.rollout.records import Turn
    from leap.sandbox.judge.verdict import Verdict

    stats, seen, out = HarvestStats(), set(), []
    for (name, sample), turns in sorted(_samples(rows).items()):
        task = tasks.get(name)
        good = [r for r in turns if r.get("correct") and r.get("code")]
        if not good:
            continue
        stats.correct_turns += len(good)
        if task is None:
            stats.unknown_task += 1
            continue
        if task.split == "eval":
            stats.eval_refused += 1
            continue
        first = good[0]
        k = int(first["turn"])
        if k > 1 and not repairs:
            continue
        key = code_key(name, first["code"])
        if key in seen:
            stats.duplicates += 1
            continue
        seen.add(key)
        msgs = build(task, backend)
        if k > 1:
            prior = [Turn(index=int(r["turn"]) - 1, messages=[], completion=r.get("completion") or "",
                          code=r.get("code"), verdict=Verdict(**r["verdict"])) for r in turns if int(r["turn"]) < k]
            msgs = next_messages(msgs, prior)
            stats.repairs += 1
        out.append({"task_id": name, "prompt": msgs, "answer": first.get("completion") or "",
                    "source": f"sample {sample} turn {k}", "verdict": first["verdict"]})
        stats.per_task[name] = stats.per_task.get(name, 0) + 1
    stats.written = len(out)
    return out, stats


def statuses(rows: Sequence[Mapping]) -> Counter:
    return Counter(r["status"] for r in rows)
