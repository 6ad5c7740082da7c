"""``leap tasks``: list and show tasks."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.syntax import Syntax
from rich.table import Table

from leap.cli.common import fail
from leap.tasks.task import TaskError, iter_task_source

app = typer.Typer(no_args_is_help=True, help="List, show and generate tasks.")


@app.command("list")
def list_tasks(source: str = typer.Option("builtin", help="builtin[:train|:eval], a file, a directory "
                                          "or a KernelBench checkout"),
               level: int | None = typer.Option(None, help="only this level")) -> None:
    """List tasks with level, dtype, split and tags."""
    try:
        tasks = [t for t in iter_task_source(source) if level is None or t.level == level]
    except TaskError as exc:
        fail(str(exc))
    table = Table(title=f"{len(tasks)} tasks from {source}")
    for col in ("name", "level", "dtype", "split", "small", "tags"):
        table.add_column(col)
    for t in tasks:
        table.add_row(t.name, str(t.level), t.dtype, t.split or "-", "yes" if t.has_small_inputs else "no",
                      ",".join(t.tags))
    Console().print(table)


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
