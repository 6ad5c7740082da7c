"""``leap verify`` and ``leap verify-batch``: check candidate kernels against tasks.

Exit codes: 0 whenever a verdict was produced (whatever it says; with --strict 1 unless it is correct); 2 with one clear line for bad
arguments or unreadable / invalid task or candidate files.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import typer

from leap.cli.common import fail
from leap.tasks.suite import iter_task_source
from leap.tasks.task import Task, TaskError

BACKENDS = ("auto", "triton", "cuda_inline", "cuda_nvrtc")
DEVICES = ("auto", "cpu", "cuda")
RULES = ("leap", "kernelbench")
RULES_HELP = "static-gate rules: leap (strict) | kernelbench (partial PyTorch in ModelNew allowed; LEAP's verdict in strict_gate)"


def _check_choice(name: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        fail(f"--{name}: {value!r} is not one of {', '.join(choices)}")


def _load_task(spec: str) -> Task:
    try:
        tasks = list(iter_task_source(spec))
    except TaskError as exc:
        fail(str(exc))
    if len(tasks) != 1:
        fail(f"{spec}: expected one task, found {len(tasks)} (give a single task file or a built-in task name)")
    return tasks[0]


def _read_source(path: str | Path, what: str = "candidate file") -> str:
    p = Path(path)
    try:
        return p.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{p}: cannot read {what} ({exc.__class__.__name__}: {exc.strerror or exc})"
             if isinstance(exc, OSError) else f"{p}: cannot read {what} (not UTF-8 text)")


def _device(device: str) -> str:
    from leap.sandbox.judge.verifier import resolve_device

    try:
        return resolve_device(device)
    except ValueError as exc:
        fail(f"--device: {exc}")


def _config(timeout: float | None, workers: int, rules: str = "leap"):
    from leap.sandbox import SandboxConfig

    kw: dict = {"workers": workers, "rules": rules}
    if timeout is not None:
        if timeout <= 0:
            fail(f"--timeout: must be positive (got {timeout})")
        kw.update(run_timeout_s=timeout, cpu_run_timeout_s=timeout)
    return SandboxConfig(**kw)


def verify(task_file: str = typer.Argument(..., help="task file or built-in task name"),
           candidate_file: str = typer.Argument(..., help="Python file defining ModelNew"),
           backend: str = typer.Option("auto", help="auto | triton | cuda_inline | cuda_nvrtc"),
           device: str = typer.Option("auto", help="auto | cpu | cuda"),
           as_json: bool = typer.Option(False, "--json", help="print exactly one JSON object"),
           timeout: float | None = typer.Option(None, help="wall-clock limit per candidate (s)"),
           rules: str = typer.Option("leap", help=RULES_HELP),
           strict: bool = typer.Option(False, "--strict", help="exit 1 unless the verdict is correct "
                                       "(for scripts)")) -> None:
    """Verify one candidate against one task and print the verdict."""
    _check_choice("backend", backend, BACKENDS)
    _check_choice("rules", rules, RULES)
    _check_choice("device", device, DEVICES)
    task = _load_task(task_file)
    source = _read_source(candidate_file)
    dev = _device(device)
    from leap.sandbox import Sandbox

    with Sandbox(_config(timeout, 1, rules).model_copy(update={"prewarm": 1}), device=dev) as sb:
        verdict = sb.verify(task, source, backend=backend, device=dev)
    if as_json:
        sys.stdout.write(json.dumps(verdict.public_dict()) + "\n")
    else:
        _print_verdict(verdict)
    if strict and not verdict.correct:
        raise typer.Exit(1)


def _print_verdict(v) -> None:
    from rich.console import Console

    con = Console()
    color = "green" if v.correct else ("yellow" if v.status == "incorrect" else "red")
    con.print(f"[bold {color}]{v.status}[/] task={v.task} backend={v.backend} device={v.device}")
    if v.speedup_eager is not None:
        sc = f"{v.speedup_compile:.2f}x" if v.speedup_compile is not None else "-"
        con.print(f"runtime {v.runtime_us:.1f} us; speedup {v.speedup_eager:.2f}x eager, {sc} torch.compile")
    if v.feedback:
        con.print(v.feedback, markup=False, highlight=False)
    if v.strict_gate:
        con.print(f"LEAP's strict gate: {v.strict_gate}", markup=False, highlight=False)
    con.print(f"stages: {', '.join(f'{k}={x:.2f}s' for k, x in v.stage_seconds.items())}", style="dim")


def _batch_pairs(inp: Path) -> list[dict]:
    """Pairs from a JSONL file ({task, candidate|source}) or a directory of ``<name>/task.py`` (or
    ``task.txt`` holding a built-in name) with ``candidate*.py`` files."""
    rows: list[dict] = []
    if inp.is_dir():
        for sub in sorted(p for p in inp.iterdir() if p.is_dir()):
            spec = sub / "task.py"
            if not spec.is_file() and (sub / "task.txt").is_file():
                spec = (sub / "task.txt").read_text().strip()
            if not isinstance(spec, str) and not spec.is_file():
                fail(f"{sub}: no task.py or task.txt in this pair directory")
            for cand in sorted(sub.glob("candidate*.py")):
                rows.append({"task": str(spec), "candidate": str(cand)})
        if not rows:
            fail(f"{inp}: no pairs found (expected sub-directories with task.py and candidate*.py)")
        return rows
    try:
        lines = inp.read_text().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        fail(f"{inp}: cannot read batch file ({exc.__class__.__name__})")
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            fail(f"{inp}:{n}: not valid JSON ({exc})")
        if not isinstance(row, dict) or "task" not in row or not ({"candidate", "source"} & set(row)):
            fail(f"{inp}:{n}: expected an object with 'task' and 'candidate' (path) or 'source' (code)")
        rows.append(row)
    if not rows:
        fail(f"{inp}: no pairs in batch file")
    return rows


def verify_batch(pairs: Path = typer.Argument(..., help="JSONL of {task, candidate|source} or a directory of pairs"),
                 out: Path = typer.Option(Path("verdicts.jsonl"), "--out", "-o", help="JSONL written here"),
                 backend: str = typer.Option("auto", help="auto | triton | cuda_inline | cuda_nvrtc"),
                 device: str = typer.Option("auto", help="auto | cpu | cuda"),
                 workers: int = typer.Option(0, help="concurrent candidates (0 = auto)"),
                 timeout: float | None = typer.Option(None, help="wall-clock limit per candidate (s)"),
                 rules: str = typer.Option("leap", help=RULES_HELP),
                 executor: str = typer.Option("local", help="local (this machine's worker pool) | ray "
                                              "(sandbox actors on a Ray cluster; RAY_ADDRESS or a local one)"),
                 actors: int = typer.Option(0, help="ray: sandbox actors (0 = one per GPU, else 2)"),
                 gpus_per_actor: float = typer.Option(1.0, help="ray: GPU share per actor (0.25 = 4 per GPU)")) -> None:
    """Verify many (task, candidate) pairs concurrently; writes one JSON line per pair."""
    from leap.progress import Progress

    _check_choice("backend", backend, BACKENDS)
    _check_choice("device", device, DEVICES)
    _check_choice("rules", rules, RULES)
    _check_choice("executor", executor, ("local", "ray"))
    if workers < 0:
        fail(f"--workers: must be >= 0 (got {workers})")
    if actors < 0 or gpus_per_actor <= 0:
        fail("--actors must be >= 0 and --gpus-per-actor > 0")
    if not pairs.exists():
        fail(f"{pairs}: no such file or directory")
    rows = _batch_pairs(pairs)
    tasks: dict[str, Task] = {}
    items = []
    for row in rows:
        spec = str(row["task"])
        if spec not in tasks:
            tasks[spec] = _load_task(spec)
        src = row["source"] if "source" in row else _read_source(row["candidate"])
        items.append((tasks[spec], str(src)))
    dev = _device(device)
    counts: dict[str, int] = {}
    results: dict[int, dict] = {}
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fh = out.open("w")
    except OSError as exc:
        fail(f"{out}: cannot write ({exc.strerror})")
    with fh, _pool(executor, _config(timeout, workers, rules), dev, actors, gpus_per_actor) as sb, Progress(
            len(items), label="verify") as prog:
        prog.stage("verifying candidates in the sandbox")
        for i, verdict in sb.verify_many(items, backend=backend, device=dev):
            counts[verdict.status] = counts.get(verdict.status, 0) + 1
            rec = {"index": i, "task": items[i][0].name, **({"candidate": rows[i]["candidate"]}
                   if "candidate" in rows[i] else {}), **verdict.public_dict()}
            results[i] = rec
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            prog.advance(1, " ".join(f"{k}={n}" for k, n in sorted(counts.items())))
    typer.echo(f"wrote {len(results)} verdicts to {out}", err=True)


def _pool(executor: str, cfg, dev: str, actors: int, gpus_per_actor: float):
    """The local `Sandbox` or a `RayExecutor`; both have ``verify_many(items, backend=...)``."""
    from leap.sandbox import Sandbox

    if executor == "local":
        return Sandbox(cfg, device=dev)
    try:
        from leap.integrations.ray_executor import RayExecutor

        return RayExecutor(cfg, device=dev, actors=actors, gpus_per_actor=gpus_per_actor)
    except RuntimeError as exc:
        fail(f"--executor ray: {exc}")


def register(app: typer.Typer) -> None:
    """Add ``verify`` and ``verify-batch`` to the ``leap`` app."""
    app.command("verify")(verify)
    app.command("verify-batch")(verify_batch)
