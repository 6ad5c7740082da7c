"""``leap eval``: run a policy through multi-turn episodes on a task set and record every turn.

Output folder: ``results.jsonl`` (one line per task/sample/turn; the last turn of a sample carries
``"final": true``), ``summary.json`` and ``report.md`` with plots. A rerun with the same folder skips
(task, sample) pairs that are already final, so an interrupted evaluation resumes.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from leap.durable import append_jsonl, atomic_write_jsonl, atomic_write_text
from leap.rollout.episode import EpisodeConfig, EpisodeStats, Verifier, run_episodes
from leap.rollout.policies.base import Policy
from leap.rollout.records import Group
from leap.sandbox.verdict import Verdict
from leap.tasks.task import Task


@dataclass
class EvalConfig:
    samples: int = 1
    turns: int = 3
    tasks_per_batch: int = 8
    episode: EpisodeConfig | None = None
    keep_text: bool = True


def read_results(path: Path) -> tuple[list[dict], set[tuple[str, int]]]:
    """Lines of a results.jsonl (a torn last line is ignored) and the finished (task, sample) pairs."""
    rows: list[dict] = []
    if path.is_file():
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    done = {(r["task"], int(r["sample"])) for r in rows if r.get("final")}
    return [r for r in rows if (r["task"], int(r["sample"])) in done], done


def group_rows(group: Group, keep_text: bool = True) -> list[dict]:
    """results.jsonl lines for one group."""
    rows = []
    for tr in group.trajectories:
        for t in tr.turns:
            row = {"task": tr.task, "sample": tr.sample, "turn": t.index + 1, "status": t.verdict.status,
                   "correct": t.verdict.correct, "speedup_eager": t.verdict.speedup_eager,
                   "speedup_compile": t.verdict.speedup_compile, "prompt_tokens": t.prompt_tokens,
                   "completion_tokens": t.completion_tokens, "expanded": group.expanded,
                   "final": t.index == len(tr.turns) - 1, "verdict": t.verdict.public_dict()}
            if keep_text:
                row.update(completion=t.completion, code=t.code)
            rows.append(row)
    return rows


def results_by_task(rows: Sequence[dict], task_order: Sequence[str] | None = None) -> dict[str, list[list[Verdict]]]:
    """Rebuild ``task -> samples -> turn verdicts`` from results rows."""
    acc: dict[str, dict[int, dict[int, Verdict]]] = {}
    for r in rows:
        acc.setdefault(r["task"], {}).setdefault(int(r["sample"]), {})[int(r["turn"])] = Verdict(**r["verdict"])
    names = [n for n in (task_order or sorted(acc)) if n in acc]
    return {n: [[t[k] for k in sorted(t)] for _, t in sorted(acc[n].items())] for n in names}


def run_eval(policy: Policy, tasks: Sequence[Task], verifier: Verifier, out: Path, config: EvalConfig,
             progress: Callable[[int], None] | None = None) -> dict:
    """Evaluate, appending to ``out/results.jsonl``; returns the summary (also written with the report)."""
    from leap.evaluation.metrics import summarize
    from leap.evaluation.report import write_report

    out.mkdir(parents=True, exist_ok=True)
    res_path = out / "results.jsonl"
    rows, done = read_results(res_path)
    # rewrite without unfinished/torn lines so a resumed run leaves one clean file (temp + rename:
    # a kill here leaves the old file, never a truncated one)
    if res_path.is_file():
        atomic_write_jsonl(res_path, rows)
    if progress:
        progress(len(done))
    ep = config.episode or EpisodeConfig()
    ep.max_turns = config.turns
    stats = EpisodeStats()
    todo = [(t, [s for s in range(config.samples) if (t.name, s) not in done]) for t in tasks]
    todo = [(t, s) for t, s in todo if s]
    for i in range(0, len(todo), config.tasks_per_batch):
        chunk = todo[i:i + config.tasks_per_batch]
        groups = run_episodes(policy, [t for t, _ in chunk], [s for _, s in chunk], verifier, ep, stats=stats)
        new = [r for g in groups for r in group_rows(g, config.keep_text)]
        append_jsonl(res_path, new)
        rows += new
        if progress:
            progress(sum(len(s) for _, s in chunk))
    results = results_by_task(rows, [t.name for t in tasks])
    summary = summarize(results, config.turns)
    summary.update(model=getattr(policy, "name", ""), kernel_backend=ep.backend, samples_per_task=config.samples,
                   groups_expanded_this_run=stats.groups_expanded)
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    write_report(out, summary, results)
    return summary
