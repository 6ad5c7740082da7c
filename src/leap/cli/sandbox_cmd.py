"""``leap sandbox audit``: run the hack/fault/legit corpus and report expected vs got; ``leap sandbox doctor``:
which isolation layers are active on this machine."""

from __future__ import annotations

import datetime as dt
import platform
import signal
import sys
import time
from pathlib import Path

import typer

from leap.cli.common import fail

app = typer.Typer(no_args_is_help=True, help="Sandbox hardening tools.")


@app.command("audit")
def audit(
    device: str = typer.Option("auto", help="auto | cpu | cuda (cpu runs the CPU-runnable cases)"),
    out: Path | None = typer.Option(None, help="write a Markdown report here (e.g. docs/AUDIT.md)"),
    corpus: Path | None = typer.Option(None, help="corpus directory (default: the repository's tests/corpus)"),
    only: str = typer.Option("", help="comma-separated substrings: run only matching case ids"),
    timeout: float = typer.Option(20.0, help="wall-clock limit per candidate run, seconds"),
    compile_timeout: float = typer.Option(180.0, help="limit per cuda_inline build, seconds"),
    parallel: bool = typer.Option(True, help="pipeline cases through verify_many (compiles overlap)"),
    gate_only: bool = typer.Option(False, "--gate-only", help="decide with the static gate alone (no runs)"),
) -> None:
    """Run every corpus case through the sandbox; print case, expected, got; exit 1 on any mismatch."""
    from rich.console import Console
    from rich.table import Table

    from leap.sandbox import corpus as C
    from leap.tasks.task import TaskError

    if device not in ("auto", "cpu", "cuda"):
        fail(f"--device must be auto, cpu or cuda (got {device!r})")
    try:
        cases = C.load_corpus(corpus)
    except TaskError as exc:
        fail(str(exc))
    import torch

    if device == "auto":
        device = "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda requested but no CUDA GPU is visible")
    wanted = [s for s in only.split(",") if s]
    if wanted:
        cases = [c for c in cases if any(s in c.id for s in wanted)]
    runnable = [c for c in cases if C.runnable_on(c, device)]
    skipped = [c for c in cases if not C.runnable_on(c, device)]
    console = Console(stderr=True)
    results: list[C.CaseResult] = []
    t0 = time.monotonic()
    if gate_only:
        results = [C.gate_only(c, corpus) for c in runnable]
    else:
        from leap.sandbox import SandboxConfig

        cfg = SandboxConfig(cpu_run_timeout_s=timeout, run_timeout_s=timeout, compile_timeout_s=compile_timeout,
                            memory_limit_gb=3 if device == "cpu" else 32)
        previous = signal.signal(signal.SIGTERM, _interrupt)  # `timeout` still gets a partial report
        try:
            with console.status(f"verifying {len(runnable)} cases on {device}") as status:
                for r in C.run_cases(runnable, device, cfg, corpus, parallel=parallel):
                    results.append(r)
                    status.update(f"verified {len(results)}/{len(runnable)} ({r.case.id}: {r.got})")
        except KeyboardInterrupt:
            done = {r.case.id for r in results}
            results += [C.CaseResult(c, "not run") for c in runnable if c.id not in done]
            console.print("[yellow]interrupted: unfinished cases are reported as 'not run'[/]")
        finally:
            signal.signal(signal.SIGTERM, previous)
        order = {c.id: i for i, c in enumerate(runnable)}
        results.sort(key=lambda r: order[r.case.id])
    wall = time.monotonic() - t0
    table = Table(title=f"sandbox audit ({device})")
    for col in ("case", "expected", "got", "ok", "s"):
        table.add_column(col, no_wrap=col == "case")
    for r in results:
        ok = r.ok or (gate_only and r.got == "passed_gate" and r.case.expect != ("rejected",))
        table.add_row(r.case.id, "|".join(r.case.expect), r.got, "[green]yes[/]" if ok else "[red]NO[/]",
                      f"{r.seconds:.1f}")
    for c in skipped:
        table.add_row(c.id, "|".join(c.expect), "needs GPU", "-", "")
    Console(width=max(Console().width, 110)).print(table)
    summary = summarize(results, skipped, gate_only)
    console.print(summary_line(summary, wall))
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(markdown(results, skipped, summary, device, wall, " ".join(["leap", *sys.argv[1:]]),
                                gate_only))
        console.print(f"wrote {out}")
    if summary["mismatches"]:
        raise typer.Exit(1)


LAYER_WORDS = {
    "environ": "environment scrubbed, exec-time block wiped",
    "network": "own network namespace (no interfaces)",
    "cgroup": "own cgroup (pids.max, memory cap, kill-all)",
    "rlimits": "resource limits",
    "mounts": "private tmp + scratch, read-only views of everything else",
    "pid": "own PID namespace (nothing outlives the candidate)",
    "proc_view": "/proc shows only the candidate's processes",
    "cwd_umask": "cwd = private dir, umask 077",
    "uid": "unprivileged uid",
    "nproc": "process cap",
}


@app.command("doctor")
def doctor(json_out: bool = typer.Option(False, "--json", help="print the layers as one JSON object")) -> None:
    """Which isolation layers a candidate gets on this machine (probed through a real sandbox child)."""
    import json
    import tempfile

    from rich.console import Console
    from rich.table import Table

    from leap.sandbox.pool.pool import WorkerPool

    with tempfile.TemporaryDirectory(prefix="leap-doctor-") as tmp:
        pool = WorkerPool(tmp, prewarm=0, interpret=True)
        layers = dict(pool.isolation_layers)
        pool.close()
    if json_out:
        print(json.dumps(layers))
        return
    table = Table(title="sandbox isolation on this machine")
    for col in ("layer", "what it gives", "status"):
        table.add_column(col)
    for name, status in layers.items():
        colour = "green" if status == "ok" or status.startswith("ok ") else "yellow" if status.startswith("off") \
            else "red"
        table.add_row(name, LAYER_WORDS.get(name, ""), f"[{colour}]{status}[/]")
    Console(width=max(Console().width, 120)).print(table)


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt


def summarize(results, skipped, gate_only: bool = False) -> dict:
    def ok(r):
        return r.ok or (gate_only and r.got == "passed_gate" and r.case.expect != ("rejected",))

    s: dict = {"mismatches": [r.case.id for r in results if not ok(r)], "skipped": len(skipped)}
    for kind in ("hacks", "faults", "legit"):
        rs = [r for r in results if r.case.kind == kind]
        s[kind] = (sum(ok(r) for r in rs), len(rs))
    legit = [r for r in results if r.case.kind == "legit"]
    s["false_rejections"] = [r.case.id for r in legit if r.got in ("rejected", "format_error")]
    s["hacks_paid"] = [r.case.id for r in results if r.case.kind == "hacks" and r.got == "ok"
                       and "ok" not in r.case.expect]
    return s


def summary_line(s: dict, wall: float) -> str:
    return (f"hacks {s['hacks'][0]}/{s['hacks'][1]} as expected, faults {s['faults'][0]}/{s['faults'][1]}, "
            f"legit {s['legit'][0]}/{s['legit'][1]} pass; false rejections {len(s['false_rejections'])}; "
            f"hacks that paid {len(s['hacks_paid'])}; {s['skipped']} need a GPU; {wall:.0f} s")


def markdown(results, skipped, s: dict, device: str, wall: float, command: str, gate_only: bool) -> str:
    import torch

    gpu = torch.cuda.get_device_name(0) if device == "cuda" else "none"
    now = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [
        "# Sandbox audit", "",
        f"Date: {now}  ",
        f"Command: `{command}`  ",
        f"Machine: {platform.node()} ({platform.machine()}, Python {platform.python_version()}, "
        f"torch {torch.__version__}, GPU: {gpu})  ",
        f"Mode: {'static gate only' if gate_only else 'full sandbox'} on {device}", "",
        f"**Summary:** {summary_line(s, wall)}", "",
    ]
    if s["mismatches"]:
        lines += ["Mismatches: " + ", ".join(f"`{m}`" for m in s["mismatches"]), ""]
    lines += ["| case | what | expected | got | ok | seconds |", "|---|---|---|---|---|---|"]
    for r in results:
        ok = r.ok or (gate_only and r.got == "passed_gate" and r.case.expect != ("rejected",))
        lines.append(f"| `{r.case.id}` | {r.case.doc} | {' / '.join(r.case.expect)} | {r.got} | "
                     f"{'yes' if ok else '**NO**'} | {r.seconds:.1f} |")
    for c in skipped:
        lines.append(f"| `{c.id}` | {c.doc} | {' / '.join(c.expect)} | needs GPU | - | |")
    return "\n".join(lines) + "\n"


@app.command("serve")
def serve(
    host: str = typer.Option("127.0.0.1", help="address to bind"),
    port: int = typer.Option(8100, help="port (0 = any free port)"),
    device: str = typer.Option("auto", help="auto | cpu | cuda | cuda:N: where candidates run"),
    workers: int = typer.Option(0, help="concurrent candidates (0 = the sandbox default)"),
    max_pending: int = typer.Option(256, help="candidates waiting or running before 429"),
    max_body: int = typer.Option(8 << 20, help="largest request body in bytes (413 above)"),
) -> None:
    """Serve the sandbox over HTTP: POST /verify, POST /verify_batch, GET /health (bearer $LEAP_SANDBOX_TOKEN)."""
    import os

    from leap.sandbox.service import TOKEN_ENV, ServiceLimits, make_service_app

    token = os.environ.get(TOKEN_ENV, "")
    if not token:
        fail(f"set {TOKEN_ENV} to the bearer token clients must send")
    from leap.rollout.server import UvicornServer
    from leap.sandbox import Sandbox, SandboxConfig
    from leap.sandbox.judge.verifier import resolve_device

    try:
        dev = resolve_device(device.split(":")[0])
    except ValueError as exc:
        fail(f"--device: {exc}")
    cfg = SandboxConfig(workers=workers)
    if ":" in device:
        cfg.gpus = [int(device.split(":")[1])]
    sandbox = Sandbox(cfg, device=dev)
    app_ = make_service_app(sandbox, token, ServiceLimits(max_pending=max_pending, max_body_bytes=max_body), dev)
    try:
        server = UvicornServer(app_, host, port, on_close=sandbox.close)
    except OSError as exc:
        sandbox.close()
        fail(f"{host}:{port}: cannot bind ({exc.strerror})")
    typer.echo(f"sandbox service on {dev} at http://{host}:{server.server_port}", err=True)
    server.serve_forever()  # SIGTERM/SIGINT: finish requests in flight, close the pool
    typer.echo("sandbox service stopped", err=True)
