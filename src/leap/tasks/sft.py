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
ANSWER_LEAD = "The whole computation runs in Triton: {how}."  # ``how``: the solution's own docstring


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
    """The assistant's reply: one sentence on the kernel's layout (from the solution's docstring, so the prose
    never contradicts the code), then the solution in a fenced block."""
    return f"{ANSWER_LEAD.format(how=_layout(solution))}\n\n```python\n{solution.rstrip()}\n```\n"


def _layout(solution: str) -> str:
    """The module docstring's first line without its "Fused Triton kernel:" style prefix and final stop."""
    import ast

    try:
        doc = ast.get_docstring(ast.parse(solution)) or ""
    except SyntaxError:
        doc = ""
    line = doc.strip().splitlines()[0].strip() if doc.strip() else ""
    line = line.split(":", 1)[1].strip() if ":" in line and line.lower().startswith(("fused", "triton")) else line
    return line.rstrip(".") or "custom kernels compute every output"


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


# --- varied templates and verified repair examples ---------------------------------------------------

MUTATIONS = {  # name -> (old, new): a typical kernel bug, applied to a correct template
    "mask_off_by_one": ("mask = cols < n_cols", "mask = cols <= n_cols"),
    "mask_off_by_one_flat": ("mask = offs < numel", "mask = offs < numel - 1"),
    "missing_store_mask": (", mask=mask)\n", ")\n"),
    "grid_one_short": ("[(rows,)]", "[(max(rows - 1, 1),)]"),
    "grid_half": ("grid = (triton.cdiv(numel, ", "grid = (triton.cdiv(numel // 2, "),
    "int_accumulate": (".to(tl.float32)", ""),
}


def mutants(solution: str) -> list[tuple[str, str]]:
    """(mutation name, mutated source) for every mutation that applies (the last matching store/line)."""
    out = []
    for name, (old, new) in MUTATIONS.items():
        if old in solution:
            if name == "missing_store_mask":  # the store's mask only
                head, _, tail = solution.rpartition("tl.store(")
                if ", mask=mask)\n" not in tail:
                    continue
                mutated = head + "tl.store(" + tail.replace(", mask=mask)\n", ")\n", 1)
            else:
                mutated = solution.replace(old, new)
            out.append((name, mutated))
    return out


@dataclass
class TemplateStats:
    tasks: int = 0
    candidates: int = 0
    verified_ok: int = 0
    written: int = 0
    duplicates: int = 0
    repairs: int = 0
    mutants_tried: int = 0
    mutants_passing: int = 0  # mutations the tests did not catch (not used)
    per_task: dict[str, int] = field(default_factory=dict)
    styles: dict[str, int] = field(default_factory=dict)
    mutations: dict[str, int] = field(default_factory=dict)


def _style_of(src: str) -> str:
    first = src.splitlines()[0] if src else ""
    for key, style in (("tiled tl.dot GEMM", "gemm_tiled"), ("Tiled matmul", "matmul"), ("Batched matmul", "bmm"),
                       ("Matrix-vector", "matvec"), ("fixed grid", "stride"), ("contiguity", "flat_hinted"),
                       ("flat 1D", "flat"), ("registers", "rows_named")):
        if key in first:
            return style
    return "rows"


def template_rows(tasks: Iterable[Task], *, variants: int = 6, repairs: int = 2, device: str = "auto",
                  on_verdict: Callable[[int, object], None] | None = None,
                  on_candidates: Callable[[int], None] | None = None) -> tuple[list[dict], TemplateStats]:
    """SFT rows: up to ``variants`` sandbox-verified template solutions per task (different kernel shapes)
    and up to ``repairs`` verified repair examples per task — a mutated (wrong) kernel, its real sandbox
    feedback, then a correct one — as multi-turn prompts. Tasks of an eval split are skipped.
    ``on_candidates(n)`` learns how many candidates go to the sandbox, ``on_verdict`` each verdict."""
    from leap.rollout.context import next_messages
    from leap.rollout.records import Turn
    from leap.sandbox import verify_many
    from leap.tasks.solutions import solution_variants

    build = prompt_builder()
    stats = TemplateStats()
    jobs: list[tuple[Task, str, str, str | None]] = []  # (task, source, kind, fixed source for a mutant)
    for task in tasks:
        if task.split == "eval":
            continue
        sols = solution_variants(task, variants)
        if not sols:
            continue
        stats.tasks += 1
        jobs += [(task, s, "solution", None) for s in sols]
        muts = [(name, m, sols[k % len(sols)]) for k, s in enumerate(sols) for name, m in mutants(s)]
        # spread over mutation kinds: one per kind first
        seen_kinds, picked = set(), []
        for name, m, fix in muts:
            if name not in seen_kinds:
                seen_kinds.add(name)
                picked.append((name, m, fix))
        for name, m, fix in picked[: max(0, repairs) * 3]:  # some mutants pass the tests; verify extra
            jobs.append((task, m, name, fix))
    stats.candidates = len(jobs)
    if on_candidates:
        on_candidates(len(jobs))
    verdicts: dict[int, object] = {}
    for i, v in verify_many([(t, s) for t, s, _, _ in jobs], backend=BACKEND, device=device):
        verdicts[i] = v
        if on_verdict:
            on_verdict(i, v)
    ok_src = {(t.name, s) for i, (t, s, kind, _) in enumerate(jobs)
              if kind == "solution" and verdicts.get(i) is not None and verdicts[i].correct}
    rows, keys, repairs_done = [], set(), {}
    for i, (task, src, kind, fix) in enumerate(jobs):
        v = verdicts.get(i)
        if v is None:
            continue
        if kind == "solution":
            if not v.correct:
                continue
            stats.verified_ok += 1
            key = (task.name, "\n".join(ln.rstrip() for ln in src.split("\n") if ln.strip()))
            if key in keys:
                stats.duplicates += 1
                continue
            keys.add(key)
            rows.append(sft_row(task, src, v, build))
            stats.styles[_style_of(src)] = stats.styles.get(_style_of(src), 0) + 1
        else:
            stats.mutants_tried += 1
            if v.correct:
                stats.mutants_passing += 1
                continue
            if (task.name, fix) not in ok_src or repairs_done.get(task.name, 0) >= repairs or v.status in (
                    "sandbox_error", "needs_gpu"):
                continue
            wrong = Turn(index=0, messages=[], completion=answer_text(src), code=src, verdict=v)
            prompt = next_messages(build(task, BACKEND), [wrong])
            rows.append({"task_id": task.name, "prompt": prompt, "answer": answer_text(fix),
                         "repair": {"mutation": kind, "status": v.status}})
            repairs_done[task.name] = repairs_done.get(task.name, 0) + 1
            stats.repairs += 1
            stats.mutations[kind] = stats.mutations.get(kind, 0) + 1
    for r in rows:
        stats.per_task[r["task_id"]] = stats.per_task.get(r["task_id"], 0) + 1
    stats.written = len(rows)
    return rows, stats
