"""``leap sft-data``: expert-iteration SFT rows and a pass-rate curriculum from `leap eval` results on
train tasks (`leap.tasks.harvest`), or from a training run's rollouts (`leap.trainer.samples_log`). Sample with
`leap eval --tasks builtin:train --samples K ...` first."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from leap.cli.common import fail

app = typer.Typer(no_args_is_help=True, help="SFT data from a model's own verified samples; pass rates.")


def _rows(source: Path) -> list[dict]:
    """Finished samples of a `leap eval` folder (or its results.jsonl), or every turn of a training run's rollouts
    (its folder, its ``rollouts/`` folder or ``step-N.jsonl`` files): each step's samples count as samples of
    their own, so one task's groups over several steps add up."""
    from leap.evaluation.runner import read_results

    steps = sorted(source.glob("step-*.jsonl")) or sorted(source.glob("rollouts/step-*.jsonl")) \
        if source.is_dir() else [source] if source.name.startswith("step-") else []
    if steps:
        rows = []
        for path in steps:
            for line in path.read_text().splitlines():
                try:
                    r = json.loads(line)
                    rows.append(r | {"sample": int(r["step"]) * 100_000 + int(r["sample"])})
                except (json.JSONDecodeError, KeyError, TypeError, ValueError):
                    continue  # a torn line of a run stopped mid-write
        if not rows:
            fail(f"{source}: no rollout rows")
        return rows
    path = source / "results.jsonl" if source.is_dir() else source
    if not path.is_file():
        fail(f"{source}: no results.jsonl or rollouts/step-N.jsonl (run `leap eval --out {source}` first)")
    rows, _ = read_results(path)
    if not rows:
        fail(f"{path}: no finished samples")
    return rows


@app.command("harvest")
def harvest_cmd(eval_dirs: list[Path] = typer.Argument(..., help="`leap eval` output folders (results.jsonl) or "
                                                      "training runs' rollouts (run folder, rollouts/, step-N.jsonl)"),
                out: Path = typer.Option(..., help="SFT JSONL to write"),
                tasks: str = typer.Option("builtin:train", help="the task source the samples came from"),
                repairs: bool = typer.Option(True, help="also keep successes after feedback (multi-turn)"),
                kernel: str = typer.Option("triton", help="kernel backend the prompts asked for")) -> None:
    """Keep the sandbox-verified correct completions (deduplicated, never from eval tasks) as SFT rows."""
    from leap.rollout.prompts import build_messages
    from leap.tasks.harvest import harvest
    from leap.tasks.suite import builtin_tasks, iter_task_source
    from leap.tasks.task import TaskError

    try:
        pool = {t.name: t for t in iter_task_source(tasks)}
    except TaskError as exc:
        fail(f"--tasks {tasks}: {exc}")
    if not any(t.split != "eval" for t in pool.values()):
        fail(f"--tasks {tasks}: no train tasks (eval tasks are never harvested)")
    pool.update({t.name: t for t in builtin_tasks("eval")})  # known, so that harvest refuses them by split
    rows = [r for d in eval_dirs for r in _rows(d)]
    sft, stats = harvest(rows, pool, build_messages, backend=kernel, repairs=repairs)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in sft))
    typer.echo(f"{stats.written} rows ({stats.repairs} repairs) from {stats.correct_turns} correct turns over "
               f"{len(stats.per_task)} tasks; {stats.duplicates} duplicates ({100 * stats.dedup_rate:.0f}%), "
               f"{stats.eval_refused} eval-task samples refused, {stats.unknown_task} not in {tasks} -> {out}")


@app.command("pass-rates")
def pass_rates_cmd(sources: list[Path] = typer.Argument(..., help="`leap eval` output folders on train tasks, or "
                                                       "training runs' rollouts (run folder, rollouts/, step-N.jsonl)"),
                   out: Path = typer.Option(..., help="JSON to write (a PNG histogram is written next to it)"),
                   turn: int = typer.Option(1, min=1, help="solved by this turn"),
                   title: str = typer.Option("", help="plot title")) -> None:
    """Per-task pass rates and their histogram (for `rollout.pass_rate_file`)."""
    from leap.tasks.harvest import pass_rates, write_pass_rates

    doc = write_pass_rates(pass_rates([r for src in sources for r in _rows(src)], turn), out, out.with_suffix(".png"),
                           title)
    typer.echo(f"{doc['tasks']} tasks, {doc['learnable']} with 0 < pass rate < 1; {doc['histogram']} -> {out}")


def _family(name: str) -> str:
    for suffix in ("_fp32", "_bf16", "_fp16"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


@app.command("templates")
def templates_cmd(out: Path = typer.Option(..., help="SFT JSONL to write"),
                  tasks: str = typer.Option("builtin:train", help="task source (eval tasks are skipped)"),
                  variants: int = typer.Option(6, min=1, help="template solutions per task (kernel shapes)"),
                  repairs: int = typer.Option(2, min=0, help="verified repair examples per task"),
                  device: str = typer.Option("auto", help="sandbox device"),
                  stats: Path = typer.Option(None, help="also write the data set's statistics (Markdown)")) -> None:
    """Varied, sandbox-verified template solutions and repair examples (wrong kernel, feedback, fix)."""
    from leap.progress import Progress
    from leap.tasks.sft import template_rows
    from leap.tasks.suite import iter_task_source
    from leap.tasks.task import TaskError

    try:
        pool = [t for t in iter_task_source(tasks) if t.split != "eval"]
    except TaskError as exc:
        fail(f"--tasks {tasks}: {exc}")
    if not pool:
        fail(f"--tasks {tasks}: no train tasks")
    with Progress(0, label="verifying") as bar:
        bar.stage(f"{len(pool)} tasks: template solutions and mutants")
        rows, st = template_rows(pool, variants=variants, repairs=repairs, device=device,
                                 on_candidates=bar.set_total, on_verdict=lambda i, v: bar.advance(1, v.status))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    typer.echo(f"{st.written} rows ({st.written - st.repairs} solutions, {st.repairs} repairs) for {st.tasks} tasks "
               f"from {st.candidates} verified candidates; {st.duplicates} duplicates; styles {st.styles}; "
               f"mutations {st.mutations} ({st.mutants_passing} mutants passed the tests, unused) -> {out}")
    if stats:
        fam: dict[str, list[int]] = {}
        for r in rows:
            f = fam.setdefault(_family(r["task_id"]), [0, 0])
            f[1 if "repair" in r else 0] += 1
        lines = [f"`leap sft-data templates --tasks {tasks} --variants {variants} --repairs {repairs}`", "",
                 f"* rows: {st.written} ({st.written - st.repairs} verified solutions, {st.repairs} verified repairs) "
                 f"over {st.tasks} tasks, {len(fam)} operator families",
                 f"* candidates verified: {st.candidates}; solutions passing: {st.verified_ok}; duplicates dropped: "
                 f"{st.duplicates} (dedup rate {st.duplicates / max(1, st.verified_ok):.1%})",
                 f"* kernel shapes: {st.styles}", f"* repair mutations: {st.mutations}; mutants the tests did not "
                 f"catch (dropped): {st.mutants_passing} of {st.mutants_tried}", "",
                 "| family | solutions | repairs |", "|---|---|---|"]
        lines += [f"| {k} | {v[0]} | {v[1]} |" for k, v in sorted(fam.items())]
        stats.parent.mkdir(parents=True, exist_ok=True)
        stats.write_text("\n".join(lines) + "\n")
