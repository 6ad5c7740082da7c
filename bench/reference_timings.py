"""Reference timings of the built-in suite: eager PyTorch and torch.compile, per task, on one GPU.

Each sample: flush L2 (write a buffer of 4x the L2 size), CUDA events around one forward call; median
of --samples (default 50) after --warmup calls. Tasks whose eager median is under 50 us are marked.
Writes a Markdown table with date and machine (default docs/REFERENCE_TIMINGS.md on CUDA) and JSON rows.

    python bench/reference_timings.py                       # whole suite on cuda:0
    python bench/reference_timings.py --shard 0/2 --json out/t0.json   # split across calls
    python bench/reference_timings.py --merge out/t0.json out/t1.json   # one report from shards
    for i in 0 1 2 3; do python bench/reference_timings.py --shard $i/4 --lock /tmp/gpu.lock --json t$i.json & done
                                                            # parallel compiles, exclusive timing
    python bench/reference_timings.py --device cpu --quick --out /tmp/t.md   # script check, no GPU

Self-contained (torch only; no pydantic): it reads the task files directly.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import fcntl
import json
import platform
import statistics
import sys
import time
import types
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
BUILTIN = ROOT / "src" / "leap" / "tasks" / "builtin"
BUSY_US = 50.0


def load_tasks(only: set[str] | None) -> list[tuple[str, types.ModuleType]]:
    tasks = []
    for level in (1, 2, 3):
        for f in sorted((BUILTIN / f"level{level}").glob("*.py")):
            if f.name.startswith("_") or (only and f.stem not in only):
                continue
            mod = types.ModuleType(f"bench_task_{f.stem}")
            exec(compile(f.read_text(), str(f), "exec"), mod.__dict__)  # noqa: S102 - built-in task files
            mod.LEAP_LEVEL = level
            tasks.append((f.stem, mod))
    return tasks


def _time_cuda(fn, args, warmup: int, samples: int, flush: torch.Tensor) -> list[float]:
    for _ in range(warmup):
        fn(*args)
    torch.cuda.synchronize()
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(samples)]
    for s, e in zip(starts, ends, strict=True):
        flush.zero_()
        s.record()
        fn(*args)
        e.record()
    torch.cuda.synchronize()
    return [1e3 * s.elapsed_time(e) for s, e in zip(starts, ends, strict=True)]


def _time_host(fn, args, warmup: int, samples: int) -> list[float]:
    for _ in range(warmup):
        fn(*args)
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        fn(*args)
        out.append(1e6 * (time.perf_counter() - t0))
    return out


def time_task(name: str, mod, device: str, args_ns, flush) -> dict:
    row = {"name": name, "level": mod.LEAP_LEVEL, "dtype": getattr(mod, "LEAP_DTYPE", "?"),
           "split": getattr(mod, "LEAP_SPLIT", "?"), "eager_us": None, "compile_us": None, "error": ""}
    small = args_ns.quick and hasattr(mod, "get_small_inputs")
    torch.manual_seed(0)
    with torch.device(device):
        inputs = list(mod.get_small_inputs() if small else mod.get_inputs())
        model = mod.Model(*mod.get_init_inputs()).to(device)
    inputs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in inputs]
    row["input_shapes"] = [list(x.shape) for x in inputs if isinstance(x, torch.Tensor)]

    def measure(fn, args):
        with torch.no_grad(), _exclusive(args_ns.lock):
            if device.startswith("cuda"):
                return statistics.median(_time_cuda(fn, args, args_ns.warmup, args_ns.samples, flush))
            return statistics.median(_time_host(fn, args, args_ns.warmup, args_ns.samples))

    try:
        row["eager_us"] = measure(model, inputs)
        if args_ns.compile:
            t0 = time.perf_counter()
            compiled = torch.compile(model, dynamic=False)
            with torch.no_grad():  # compile outside the GPU lock: shards compile in parallel, time one by one
                compiled(*inputs)
            row["compile_us"] = measure(compiled, inputs)
            row["compile_seconds"] = time.perf_counter() - t0
    except Exception as exc:  # one failing task is reported, the bench goes on
        row["error"] = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"
    del model, inputs
    if device.startswith("cuda"):
        torch.cuda.empty_cache()
    return row


@contextlib.contextmanager
def _exclusive(path: str | None):
    """Hold an exclusive lock on ``path`` (shared by shard processes on one GPU) while timing."""
    if not path:
        yield
        return
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def machine(device: str) -> dict:
    info = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), "host": platform.node(),
            "torch": torch.__version__, "python": platform.python_version(), "device": device}
    try:
        import triton

        info["triton"] = triton.__version__
    except ImportError:
        pass
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(torch.device(device))
        info.update(gpu=props.name, cuda=torch.version.cuda, gpu_memory_gib=round(props.total_memory / 2**30))
    else:
        info["cpu"] = platform.processor() or platform.machine()
    return info


def _fmt(v) -> str:
    return "-" if v is None else f"{v:,.1f}"


def report(rows: list[dict], info: dict, command: str) -> str:
    under = [r for r in rows if r["eager_us"] is not None and r["eager_us"] < BUSY_US]
    lines = ["# Reference timings of the built-in suite", "",
             f"- date: {info['date']}", f"- machine: {info.get('gpu', info.get('cpu', '?'))} "
             f"({info.get('gpu_memory_gib', '?')} GiB), host {info['host']}",
             f"- software: torch {info['torch']}, triton {info.get('triton', '-')}, CUDA {info.get('cuda', '-')}, "
             f"python {info['python']}", f"- command: `{command}`",
             "- method: median of the samples, CUDA events, L2 flushed before every sample (CPU: host clock); "
             "inputs are the tasks' `get_inputs()` shapes" + (" (CPU run: small shapes)" if info["device"] == "cpu"
                                                             else ""),
             f"- tasks under {BUSY_US:.0f} us (eager) are marked **<50us**: {len(under)} of {len(rows)}", "",
             "| task | level | dtype | split | eager us | compile us | eager/compile | note |",
             "|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["level"], r["name"])):
        ratio = (f"{r['eager_us'] / r['compile_us']:.2f}x" if r["eager_us"] and r["compile_us"] else "-")
        note = "**<50us**" if r in under else ""
        if r["error"]:
            note = (note + " error: " + r["error"].replace("|", "/")).strip()
        lines.append(f"| {r['name']} | {r['level']} | {r['dtype']} | {r['split']} | {_fmt(r['eager_us'])} | "
                     f"{_fmt(r['compile_us'])} | {ratio} | {note} |")
    return "\n".join(lines) + "\n"


def print_table(rows: list[dict]) -> None:
    print(f"{'task':30s} {'lvl':>3s} {'dtype':>5s} {'eager us':>12s} {'compile us':>12s}  note")
    for r in rows:
        note = ("<50us " if r["eager_us"] is not None and r["eager_us"] < BUSY_US else "") + r["error"]
        print(f"{r['name']:30s} {r['level']:>3d} {r['dtype']:>5s} {_fmt(r['eager_us']):>12s} "
              f"{_fmt(r['compile_us']):>12s}  {note}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", default="cuda")
    p.add_argument("--quick", action="store_true", help="small inputs, few samples, no compile (script check)")
    p.add_argument("--samples", type=int, default=None)
    p.add_argument("--warmup", type=int, default=None)
    p.add_argument("--compile", action=argparse.BooleanOptionalAction, default=None)
    p.add_argument("--only", default="", help="comma-separated task names")
    p.add_argument("--shard", default="", help="i/n: time every n-th task starting at i")
    p.add_argument("--out", default=None, help="Markdown report (default docs/REFERENCE_TIMINGS.md on CUDA)")
    p.add_argument("--json", default=None, help="also write the rows as JSON")
    p.add_argument("--lock", default=None, help="lock file shared by shards run in parallel on one GPU: "
                   "they compile concurrently and time one at a time")
    p.add_argument("--merge", nargs="*", default=None, help="JSON files from shards: write one report, time nothing")
    a = p.parse_args(argv)
    command = "python bench/reference_timings.py " + " ".join(argv if argv is not None else sys.argv[1:])
    out = a.out or (str(ROOT / "docs" / "REFERENCE_TIMINGS.md") if a.device.startswith("cuda") else None)
    if a.merge is not None:
        data = [json.loads(Path(f).read_text()) for f in a.merge]
        rows = [r for d in data for r in d["rows"]]
        text = report(rows, data[0]["machine"], data[0]["command"] + f"  (merged from {len(data)} shards)")
        print_table(rows)
        if out:
            Path(out).write_text(text)
        return 0
    if a.device.startswith("cuda") and not torch.cuda.is_available():
        print("error: --device cuda but no CUDA GPU is visible (use --device cpu --quick to check the script)",
              file=sys.stderr)
        return 2
    a.samples = a.samples or (5 if a.quick else 50)
    a.warmup = a.warmup or (1 if a.quick else 5)
    a.compile = (not a.quick) if a.compile is None else a.compile
    tasks = load_tasks(set(a.only.split(",")) if a.only else None)
    if a.shard:
        i, n = (int(v) for v in a.shard.split("/"))
        tasks = tasks[i::n]
    flush = None
    if a.device.startswith("cuda"):
        l2 = getattr(torch.cuda.get_device_properties(torch.device(a.device)), "L2_cache_size", 64 << 20)
        flush = torch.empty(max(4 * l2, 256 << 20), dtype=torch.uint8, device=a.device)
    rows = []
    for k, (name, mod) in enumerate(tasks):
        rows.append(time_task(name, mod, a.device, a, flush))
        r = rows[-1]
        print(f"[{k + 1}/{len(tasks)}] {name}: eager {_fmt(r['eager_us'])} us, compile {_fmt(r['compile_us'])} us "
              f"{r['error']}", flush=True)
    info = machine(a.device)
    print_table(rows)
    if out:
        Path(out).parent.mkdir(parents=True, exist_ok=True)
        Path(out).write_text(report(rows, info, command))
        print(f"wrote {out}")
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps({"machine": info, "command": command, "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
