"""``leap tasks``: list, show, validate and generate tasks."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from leap.cli.common import fail
from leap.tasks.suite import iter_task_source
from leap.tasks.task import TaskError

app = typer.Typer(no_args_is_help=True, help="List, show and generate tasks.")


@app.command("list")
def list_tasks(source: str = typer.Option("builtin", help="builtin[:train|:eval], a file, a directory "
                                          "or a KernelBench checkout"),
               level: int | None = typer.Option(None, help="only this level")) -> None:
    """List tasks with level, dtype, split and tags."""
    try:
        tasks = [t for t in iter_task_source(source, keep_unavailable=True) if level is None or t.level == level]
    except TaskError as exc:
        fail(str(exc))
    table = Table(title=f"{len(tasks)} tasks from {source}")
    graded = any(t.difficulty for t in tasks)
    for col in ("name", "level", "dtype", "split", "small", *(("difficulty",) if graded else ()), "tags"):
        table.add_column(col, no_wrap=col == "name", overflow="fold")
    for t in tasks:
        table.add_row(t.name, str(t.level), t.dtype, t.split or "-", "yes" if t.has_small_inputs else "no",
                      *((t.difficulty or "-",) if graded else ()), ",".join(t.tags))
    # never cut names to the terminal's (or a pipe's 80-column) width
    console = Console(width=max(120, 40 + max((len(t.name) for t in tasks), default=0) * 2))
    console.print(table)
    off = [t for t in tasks if t.unavailable]
    if off:
        console.print(f"{len(off)} of these tasks cannot run here: {off[0].unavailable}")


@app.command("show")
def show_task(name: str = typer.Argument(..., help="built-in task name or task file")) -> None:
    """Print a task's metadata and source."""
    try:
        task = next(iter_task_source(name))
    except TaskError as exc:
        fail(str(exc))
    console = Console()
    meta = task.model_dump(exclude={"source"})
    console.print(meta)
    console.print(Syntax(task.source, "python", line_numbers=False))


@app.command("validate")
def validate_cmd(source: str = typer.Argument("builtin", help="builtin[:train|:eval], a task file, a directory "
                                             "or a KernelBench checkout"),
                 gpu_shapes: bool = typer.Option(True, help="also size the GPU shapes on the meta device"),
                 show_all: bool = typer.Option(False, "--all", help="list valid tasks too"),
                 strict: bool = typer.Option(False, "--strict", help="degenerate, ill-conditioned or oversized "
                                             "tasks are invalid even without LEAP metadata (KernelBench files: "
                                             "warnings by default)")) -> None:
    """Check that each task's reference runs on the CPU, is deterministic and not degenerate.
    Exit 0 when all are valid, 1 when some are not."""
    from rich.progress import track

    from leap.tasks.module import single_thread
    from leap.tasks.validate import validate_task

    try:
        tasks = list(iter_task_source(source, keep_unavailable=True))
    except TaskError as exc:
        fail(str(exc))
    with single_thread():
        reports = [validate_task(t, gpu_shapes=gpu_shapes, strict=strict or None)
                   for t in track(tasks, description="validating", transient=True)]
    table = Table(title=f"validation of {len(tasks)} tasks from {source}")
    for col in ("name", "verdict", "seconds", "GPU MiB", "est. GPU us", "reason"):
        table.add_column(col)
    for r in reports:
        if r.ok and not r.warnings and not show_all:
            continue
        mib = "-" if r.gpu_bytes is None else f"{r.gpu_bytes / 2**20:.0f}"
        est = "-" if r.est_gpu_us is None else f"{r.est_gpu_us:.0f}"
        verdict = "[red]invalid[/red]" if not r.ok else ("[yellow]valid, warning[/yellow]" if r.warnings else "valid")
        reason = "; ".join(r.problems or [f"warning: {w}" for w in r.warnings] + [f"note: {n}" for n in r.notes])
        table.add_row(r.name, verdict, f"{r.seconds:.2f}", mib, est, reason or "-")
    console = Console()
    bad = sum(not r.ok for r in reports)
    if table.row_count:
        console.print(table)
    warned = sum(r.ok and bool(r.warnings) for r in reports)
    console.print(f"{len(reports) - bad}/{len(reports)} tasks valid" + (f" ({warned} with warnings)" if warned else ""))
    raise typer.Exit(1 if bad else 0)


@app.command("generate")
def generate_cmd(n: int = typer.Option(2000, "--n", min=1, help="number of tasks"),
                 seed: int = typer.Option(0, help="random seed (same seed, same tasks)"),
                 out: str = typer.Option(..., help="output directory (tasks/, solutions/, manifest.jsonl)"),
                 with_solutions: bool = typer.Option(False, help="write template Triton solutions, verify "
                                                     "them with the sandbox and write sft.jsonl"),
                 verify_limit: int = typer.Option(0, help="verify at most this many solutions (0 = all)"),
                 device: str = typer.Option("auto", help="sandbox device for verification: auto, cpu or cuda")
                 ) -> None:
    """Compose operators into fused tasks: distinct, validated, clear of the eval split."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from leap.tasks.generate import generate_tasks, write_generated

    if device not in ("auto", "cpu", "cuda"):
        fail(f"--device {device}: expected auto, cpu or cuda")
    try:
        Path(out).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"{out}: cannot create the output directory ({exc.strerror or exc})")
    console = Console()
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
               TextColumn("{task.fields[info]}"))
    with Progress(*columns, console=console, transient=False) as progress:
        bar = progress.add_task("generating", total=n, info="")

        def on_accept(item, stats):
            progress.update(bar, completed=stats.accepted,
                            info=f"dup {stats.duplicates} eval {stats.eval_overlap} invalid {stats.invalid}")

        items, stats = generate_tasks(n, seed, with_solutions=with_solutions, on_accept=on_accept)
    try:
        write_generated(items, out)
    except OSError as exc:
        fail(f"{out}: cannot write ({exc})")
    console.print(f"{stats.accepted} tasks in {stats.seconds:.1f} s from {stats.attempts} draws "
                  f"(duplicates {stats.duplicates}, eval overlaps {stats.eval_overlap}, invalid {stats.invalid}); "
                  f"difficulty {dict(sorted(stats.difficulty.items()))} -> {out}")
    if stats.accepted < n:
        console.print(f"[yellow]only {stats.accepted} of {n} distinct valid tasks found[/yellow]")
    if with_solutions:
        _write_sft(items, out, verify_limit, device, console)


def _write_sft(items, out: str, verify_limit: int, device: str, console: Console) -> None:
    from leap.progress import Progress
    from leap.tasks.sft import prompt_builder, write_sft

    pairs = [(i.task, i.solution) for i in items if i.solution]
    if verify_limit:
        pairs = pairs[:verify_limit]
    console.print(f"{sum(1 for i in items if i.solution)} template solutions written; verifying {len(pairs)}")
    try:
        prompt_builder()
    except TaskError as exc:
        fail(str(exc))
    with Progress(len(pairs), label="verifying") as bar:
        stats = write_sft(pairs, Path(out) / "sft.jsonl", device=device,
                          on_verdict=lambda i, v: bar.advance(1, v.status))
    console.print(f"sft.jsonl: {stats.written} verified pairs of {stats.verified} ({stats.statuses})")
