"""The built-in task suite shipped with the package (``builtin/level{1,2,3}/*.py``)."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from pathlib import Path

from leap.tasks.task import Task, TaskError, load_kernelbench, load_task_dir, load_task_file

BUILTIN_DIR = Path(__file__).parent / "builtin"


@lru_cache(maxsize=1)
def _all_builtin() -> tuple[Task, ...]:
    tasks: list[Task] = []
    for level in (1, 2, 3):
        folder = BUILTIN_DIR / f"level{level}"
        if folder.is_dir():
            tasks.extend(load_task_dir(folder, level=level))
    for t in tasks:
        t.origin = f"builtin:{t.name}"
    return tuple(tasks)


def builtin_tasks(split: str | None = None, level: int | None = None) -> list[Task]:
    """Built-in tasks, optionally filtered by split ("train"/"eval") and level."""
    if split not in (None, "train", "eval"):
        raise TaskError(f"builtin:{split}: unknown split (expected train or eval)")
    return [t.model_copy() for t in _all_builtin()
            if (split is None or t.split == split) and (level is None or t.level == level)]


def get_builtin(name: str) -> Task:
    """One built-in task by name; a clear error lists near names when it does not exist."""
    for t in _all_builtin():
        if t.name == name:
            return t.model_copy()
    near = [t.name for t in _all_builtin() if name.lower() in t.name.lower()][:5]
    hint = f" (did you mean {', '.join(near)}?)" if near else " (see `leap tasks list`)"
    raise TaskError(f"{name}: no such task file or built-in task{hint}")


def iter_task_source(spec: str, keep_unavailable: bool = False) -> Iterator[Task]:
    """Resolve a task source given on the command line: a file, a directory, a KernelBench
    checkout, ``builtin`` / ``builtin:train`` / ``builtin:eval``, or a built-in task name.
    ``keep_unavailable`` (listing, validation): tasks LEAP cannot run (KernelBench level 4) come back
    with the reason in ``Task.unavailable`` instead of refusing the source."""
    if spec.startswith("builtin"):
        split = spec.split(":", 1)[1] if ":" in spec else None
        yield from builtin_tasks(split=split)
        return
    p = Path(spec)
    if p.is_file():
        yield load_task_file(p, keep_unavailable=keep_unavailable)
    elif p.is_dir():
        if (p / "KernelBench").is_dir() or (p / "level1").is_dir():
            yield from load_kernelbench(p)
        else:
            yield from load_task_dir(p, keep_unavailable=keep_unavailable)
    else:
        yield get_builtin(spec)
