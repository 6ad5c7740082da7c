"""``leap eval``: run a policy through multi-turn episodes on a task set and record every turn.

Output folder: ``results.jsonl`` (one line per task/sample/turn; the last turn of a sample carries
``"final": true``), ``eval_results.json`` (KernelBench's layout, `leap.evaluation.kernelbench`),
``summary.json`` (LEAP's measures, KernelBench's scores under ``"kernelbench"``, or per level when the
tasks span several levels, the environment and the sampling settings) and ``report.md`` with plots. A rerun with the same folder skips (task, sample) pairs
that are already final, so an interrupted evaluation resumes.

The judge shares the process with the policy: its cached GPU memory is handed back to the driver after
every verification batch (before the next generation), and a batch whose verification raises is
verified one candidate at a time, a candidate that still raises getting ``sandbox_error`` (the judge
failed, not the candidate) while the evaluation goes on.
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
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task


@dataclass
class EvalConfig:
    samples: int = 1
    turns: int = 3
    tasks_per_batch: int = 8
    episode: EpisodeConfig | None = None
    keep_text: bool = True
    sampling: dict | None = None  # recorded in summary.json
    prompt_mode: str = "leap"


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
            if t.verdict.status == "sandbox_error" and t.verdict.detail:  # why the judge failed (never a prompt)
                row["sandbox_detail"] = t.verdict.detail[-1500:]
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


def release_gpu_cache() -> None:
    """Hand the process's cached, unallocated CUDA memory back to the driver (no-op without CUDA)."""
    import gc

    import torch

    if torch.cuda.is_available() and torch.cuda.is_initialized():
        gc.collect()
        torch.cuda.empty_cache()


def _judge_error(exc: BaseException) -> Verdict:
    return Verdict(status="sandbox_error", feedback="The sandbox could not evaluate this solution (a judge-side "
                   "failure, not the candidate's).", detail=f"{type(exc).__name__}: {str(exc)[:300]}")


def guarded_verifier(verifier: Verifier) -> Verifier:
    """``verifier`` that releases the judge's cached GPU memory after each batch and never raises: a batch
    that raises is retried one pair at a time; a pair that raises gets a ``sandbox_error`` verdict."""
    def verify(pairs: list[tuple[Task, str]]) -> list[Verdict]:
        try:
            return verifier(pairs)
        except Exception:  # noqa: BLE001 - judge failure (e.g. CUDA OOM on a huge problem): retry singly
            release_gpu_cache()
            out = []
            for pair in pairs:
                try:
                    out += verifier([pair])
                except Exception as exc:  # noqa: BLE001
                    out.append(_judge_error(exc))
                release_gpu_cache()
            return out
        finally:
            release_gpu_cache()
    return verify


def run_eval(policy: Policy, tasks: Sequence[Task], verifier: Verifier, out: Path, config: EvalConfig,
             progress: Callable[[int], None] | None = None) -> dict:
    """Evaluate, appending to ``out/results.jsonl``; returns the summary (also written with the report)."""
    from leap.evaluation.environment import environment
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
    verifier = guarded_verifier(verifier)
    release_gpu_cache()
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
    summary.update(kernelbench_results(out, results, [t.name for t in tasks]))
    summary.update(prompt_mode=config.prompt_mode, sampling=config.sampling or {}, environment=environment())
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    write_report(out, summary, results)
    return summary


def kernelbench_results(out: Path, results: dict[str, list[list[Verdict]]], names: list[str]) -> dict:
    """Write ``eval_results.json`` (turn 1; plus ``eval_results_last_turn.json`` for multi-turn runs) and
    return KernelBench's scores of them for summary.json (``kernelbench``, ``kernelbench_last_turn``).

    KernelBench numbers problems per level, so tasks of several levels (a whole checkout) get one set of
    files and scores per level: ``eval_results_level{N}.json`` and ``kernelbench_level{N}`` (``other`` for
    tasks that are not KernelBench's)."""
    from leap.evaluation.kernelbench import split_levels

    groups = split_levels(names)
    if len(groups) <= 1:
        return _kernelbench_files(out, results, names, "")
    scores: dict = {}
    for level, group in groups.items():
        scores.update(_kernelbench_files(out, results, group, f"_level{level}" if level is not None else "_other"))
    return scores


def _kernelbench_files(out: Path, results: dict[str, list[list[Verdict]]], names: list[str], tag: str) -> dict:
    from leap.evaluation.kernelbench import eval_results, kb_scores, problem_ids

    ids = problem_ids(names)
    first = eval_results(results, names, turn=1)
    atomic_write_text(out / f"eval_results{tag}.json", json.dumps(first, indent=2) + "\n")
    scores = {f"kernelbench{tag}": kb_scores(first, ids)}
    if any(len(s) > 1 for n in names for s in results.get(n, [])):
        last = eval_results(results, names, turn=-1)
        atomic_write_text(out / f"eval_results_last_turn{tag}.json", json.dumps(last, indent=2) + "\n")
        scores[f"kernelbench_last_turn{tag}"] = kb_scores(last, ids)
    return scores
