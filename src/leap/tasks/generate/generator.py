"""Procedural task generation: sample chains, render, deduplicate, keep clear of the eval split,
validate (degenerate filter), label difficulty, and write task files (plus template solutions)."""

from __future__ import annotations

import hashlib
import json
import random
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from leap.tasks.generate.dedup import Deduper, normalized_source_hash, op_signature
from leap.tasks.generate.grammar import Chain, sample_chain
from leap.tasks.generate.render import render_task
from leap.tasks.generate.solution import render_solution
from leap.tasks.module import single_thread
from leap.tasks.task import Task, parse_task
from leap.tasks.validate import validate_task


@dataclass
class GeneratedTask:
    task: Task
    chain: Chain
    solution: str | None = None


@dataclass
class GenerateStats:
    attempts: int = 0
    accepted: int = 0
    duplicates: int = 0
    eval_overlap: int = 0
    invalid: int = 0
    seconds: float = 0.0
    difficulty: dict[str, int] = field(default_factory=dict)
    invalid_reasons: dict[str, int] = field(default_factory=dict)


def task_name(chain: Chain) -> str:
    ops = "_".join(op.name for op in chain.ops)[:48]
    digest = hashlib.sha256(chain.signature.encode()).hexdigest()[:6]
    return f"gen_{ops}_{chain.dtype}_{digest}"


def eval_sources() -> list[str]:
    """Sources of the built-in eval split (the generator never emits anything that overlaps them)."""
    from leap.tasks.suite import builtin_tasks

    return [t.source for t in builtin_tasks(split="eval")]


def generate_tasks(n: int, seed: int, *, blocked: Iterable[str] | None = None, with_solutions: bool = False,
                   validate: bool = True, max_attempts: int | None = None,
                   on_accept: Callable[[GeneratedTask, GenerateStats], None] | None = None,
                   ) -> tuple[list[GeneratedTask], GenerateStats]:
    """Up to ``n`` distinct valid tasks from ``seed`` (same seed, same tasks). ``blocked`` are task
    sources to stay clear of (default: the built-in eval split), by op signature and source hash."""
    rng = random.Random(seed)
    dedup = Deduper(eval_sources() if blocked is None else blocked)
    stats = GenerateStats()
    out: list[GeneratedTask] = []
    t0 = time.perf_counter()
    limit = max_attempts if max_attempts is not None else 50 * n + 100
    with single_thread():
        _draw(out, n, limit, rng, dedup, stats, seed, with_solutions, validate, on_accept)
    stats.seconds = time.perf_counter() - t0
    return out, stats


def _draw(out, n, limit, rng, dedup, stats, seed, with_solutions, validate, on_accept) -> None:
    """Draw chains until ``n`` tasks are accepted or ``limit`` draws are spent (appends to ``out``)."""
    while len(out) < n and stats.attempts < limit:
        stats.attempts += 1
        chain = sample_chain(rng)
        name = task_name(chain)
        source = render_task(chain, name)
        why = dedup.check(source, chain.dtype)
        if why == "eval overlap":
            stats.eval_overlap += 1
            continue
        if why:
            stats.duplicates += 1
            continue
        task = parse_task(source, name=name, origin=f"generated:seed={seed}")
        dedup.add(source, chain.dtype)  # invalid ones too: the same chain is never tried twice
        if validate:
            report = validate_task(task, gpu_shapes=False)
            if not report.ok:
                stats.invalid += 1
                key = report.problems[0].split(":")[0][:60]
                stats.invalid_reasons[key] = stats.invalid_reasons.get(key, 0) + 1
                continue
        item = GeneratedTask(task, chain, render_solution(chain) if with_solutions else None)
        out.append(item)
        stats.accepted += 1
        d = task.difficulty or "?"
        stats.difficulty[d] = stats.difficulty.get(d, 0) + 1
        if on_accept:
            on_accept(item, stats)


def manifest_row(item: GeneratedTask) -> dict:
    t = item.task
    return {"name": t.name, "level": t.level, "dtype": t.dtype, "difficulty": t.difficulty, "tags": t.tags,
            "signature": op_signature(t.source, dtype=t.dtype), "chain": item.chain.signature,
            "source_hash": normalized_source_hash(t.source), "has_solution": item.solution is not None}


def write_generated(items: list[GeneratedTask], out_dir: str | Path) -> Path:
    """Write ``tasks/<name>.py``, ``solutions/<name>.py`` (where covered) and ``manifest.jsonl``."""
    out = Path(out_dir)
    (out / "tasks").mkdir(parents=True, exist_ok=True)
    if any(i.solution for i in items):
        (out / "solutions").mkdir(exist_ok=True)
    with open(out / "manifest.jsonl", "w") as mf:
        for item in items:
            (out / "tasks" / f"{item.task.name}.py").write_text(item.task.source)
            if item.solution:
                (out / "solutions" / f"{item.task.name}.py").write_text(item.solution)
            mf.write(json.dumps(manifest_row(item)) + "\n")
    return out
