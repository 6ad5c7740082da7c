"""Sandbox throughput: the warm pool vs a naive fresh-process-per-candidate baseline, plus repeatability.

GPU (H200), in parts (each under 10 min; results merge in docs/sandbox_throughput_gpu.json):
  python bench/sandbox_throughput.py --mode pool; ... --mode naive; ... --mode repeat
  (--mode all runs the three in one go, ~11 min)
  python bench/sandbox_throughput.py --mode ray --actors 4: the same batch through N Ray sandbox actors
  sharing the GPU(s) (leap.integrations.ray_executor), compared with the pool's verdicts and throughput
CPU smoke test of the script itself:  python bench/sandbox_throughput.py --quick

A mixed batch (correct, incorrect, compile errors; triton, cuda_nvrtc, cuda_inline) runs through
(a) `Sandbox.verify_many` and (b) a baseline that starts `python` per candidate, imports torch, builds the
models, compiles inline (fresh extension dir) and checks 5 trials with allclose, timing with CUDA events
(what KernelBench's harness does). Reports candidates/min, median latency per stage, verdict agreement,
and the spread of speedups when the same correct kernels are verified 5 times. Results (JSON + a
Markdown table) go to docs/.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("sandbox_kernels", ROOT / "tests/integration/sandbox_cases/kernels.py")
K = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(K)

# (task, kernel name, expected status on the GPU) — every entry gets a unique comment, so no two sources
# share a compile-cache entry. (No unwritten-tail kernel here: relu_fp32's rows have no tail, so it is
# rightly correct there; tests/gpu/test_sandbox_gpu.py checks it on a shape with one.)
GPU_MIX = [
    ("relu_fp32", "RELU", "ok"), ("softmax_fp32", "SOFTMAX", "ok"), ("sum_rows_fp32", "ROWSUM", "ok"),
    ("relu_fp32", "RELU_MASK_OFF_BY_ONE", "incorrect"), ("relu_fp32", "RELU_WRONG_DTYPE", "incorrect"), ("sum_rows_fp32", "ROWSUM_WRONG_AXIS", "incorrect"),
    ("relu_fp32", "RELU_BAD_TRITON", "compile_error"),
    ("relu_fp32", "NVRTC_RELU", "ok"), ("relu_fp32", "NVRTC_RELU", "ok"), ("relu_fp32", "NVRTC_RELU_SYNTAX", "compile_error"),
    ("relu_fp32", "NVRTC_ILLEGAL_ADDRESS", "runtime_error"),
]
INLINE_MIX = [("relu_fp32", "INLINE_RELU", "ok"), ("relu_fp32", "INLINE_RELU_ERROR", "compile_error")]
CPU_MIX = [
    ("relu_fp32", "RELU", "ok"), ("softmax_fp32", "SOFTMAX", "ok"), ("sum_rows_fp32", "ROWSUM", "ok"),
    ("relu_fp32", "RELU_MASK_OFF_BY_ONE", "incorrect"), ("sum_rows_fp32", "ROWSUM_WRONG_AXIS", "incorrect"),
    ("relu_fp32", "RELU_SYNTAX_ERROR", "format_error"), ("relu_fp32", "RELU_PY_ERROR", "runtime_error"),
]
REPEAT = [("relu_fp32", "RELU"), ("softmax_fp32", "SOFTMAX"), ("relu_fp32", "NVRTC_RELU"),
          ("relu_fp32", "INLINE_RELU")]

NAIVE = r'''
import json, os, sys, time, traceback
t0 = time.perf_counter()
import torch
stage = {"import": time.perf_counter() - t0}
task_src, cand_src, device = open(sys.argv[1]).read(), open(sys.argv[2]).read(), sys.argv[3]
if device == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"
def run():
    tm = {}; exec(compile(task_src, "task.py", "exec"), tm)
    torch.manual_seed(42); init = tm["get_init_inputs"]()
    torch.manual_seed(42); ref = tm["Model"](*init).to(device)
    t = time.perf_counter()
    cm = {"__name__": "cand"}
    path = os.path.join(os.path.dirname(sys.argv[2]), "cand.py")
    open(path, "w").write(cand_src)
    import importlib.util
    spec = importlib.util.spec_from_file_location("cand", path); mod = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(mod)
    except SyntaxError:
        return "format_error", None
    except Exception as e:
        return ("compile_error" if "building extension" in str(e) else "runtime_error"), None
    torch.manual_seed(42); model = mod.ModelNew(*init).to(device)
    stage["compile"] = time.perf_counter() - t
    make = tm.get("get_small_inputs") if device == "cpu" else tm["get_inputs"]
    t = time.perf_counter()
    for i in range(5):
        torch.manual_seed(1000 + i)
        xs = [x.to(device) if isinstance(x, torch.Tensor) else x for x in make()]
        with torch.no_grad():
            want = ref(*[x.clone() for x in xs]); got = model(*xs)
        if not isinstance(got, torch.Tensor) or got.shape != want.shape or got.dtype != want.dtype \
                or not torch.allclose(got, want, rtol=1e-4, atol=1e-4 * float(want.float().pow(2).mean().sqrt())):
            return "incorrect", None
    stage["check"] = time.perf_counter() - t
    if device != "cuda":
        return "ok", None
    t = time.perf_counter()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    times = []
    for _ in range(30):
        s.record(); model(*xs); e.record(); torch.cuda.synchronize(); times.append(s.elapsed_time(e) * 1000)
    stage["timing"] = time.perf_counter() - t
    return "ok", sorted(times)[15]
try:
    status, us = run()
except Exception as e:
    kind = type(e).__name__
    status = "compile_error" if kind in ("CompilationError", "CompileException") or "building extension" in str(e) \
        else "runtime_error"
    us = None
print("NAIVE_RESULT " + json.dumps({"status": status, "runtime_us": us, "stages": stage}))
'''


def build_batch(quick: bool, device: str, n: int, n_inline: int) -> list[tuple[str, str, str, str]]:
    """(task, kernel name, expected status, source) with a unique comment per entry."""
    base = CPU_MIX if device == "cpu" else GPU_MIX
    out = []
    i = 0
    while len(out) < n:
        task, name, exp = base[i % len(base)]
        out.append((task, name, exp, f"# candidate {i}\n" + getattr(K, name)))
        i += 1
    if device == "cuda":
        for j in range(n_inline):
            task, name, exp = INLINE_MIX[j % len(INLINE_MIX)]
            out.append((task, name, exp, f"# candidate inline {j}\n" + getattr(K, name)))
    return out


class GpuMemoryPeak:
    """Device-wide used GPU memory (every process: the judge and its children), sampled every 20 ms while the
    block runs: what the judge's memory plan (`memory_plan`, its budget a share of the GPU) leaves unused."""

    def __init__(self, device: str):
        self.on = device == "cuda"
        self.peak = 0
        self.total = 0
        self._stop = threading.Event()

    def _sample(self) -> None:
        import torch

        while not self._stop.wait(0.02):
            free, self.total = torch.cuda.mem_get_info(0)
            self.peak = max(self.peak, self.total - free)

    def __enter__(self):
        if self.on:
            self._thread = threading.Thread(target=self._sample, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self.on:
            self._stop.set()
            self._thread.join()

    def record(self, budget) -> dict:
        gib = 2**30
        return {"gpu_peak_used_gib": round(self.peak / gib, 2), "gpu_total_gib": round(self.total / gib, 2),
                "judge_budget_gib": round(budget / gib, 2) if budget else None} if self.on else {}


def run_pool(batch, device: str, workers: int, cache: str, compile_pass: bool = True) -> dict:
    from leap.sandbox import Sandbox, SandboxConfig
    from leap.sandbox.judge.memory_plan import device_capacity
    from leap.tasks.suite import get_builtin

    tasks = {t: get_builtin(t) for t, *_ in batch}
    cfg = SandboxConfig(workers=workers, cache_dir=cache, compile_pass=compile_pass)
    t_start = time.monotonic()
    with Sandbox(cfg, device=device) as sb, GpuMemoryPeak(device) as mem:
        warm = time.monotonic() - t_start
        t0 = time.monotonic()
        verdicts = dict(sb.verify_many([(tasks[t], src) for t, _, _, src in batch]))
        wall = time.monotonic() - t0
    memory = mem.record(device_capacity(device, 0, cfg.judge_memory_share, cfg.judge_memory_gib)
                        if device == "cuda" else None)
    rows = [{"task": t, "kernel": k, "expected": e, "status": verdicts[i].status,
             "runtime_us": verdicts[i].runtime_us, "speedup_eager": verdicts[i].speedup_eager,
             "stages": verdicts[i].stage_seconds,
             **({"feedback": verdicts[i].feedback[:300], "detail": verdicts[i].detail[:1500]} if verdicts[i].status != e else {})}
            for i, (t, k, e, _) in enumerate(batch)]
    return {"wall_s": wall, "startup_s": warm, "rows": rows, "workers": cfg.n_workers(device),
            "compile_pass": compile_pass, **memory}


def _rows(batch, verdicts: dict) -> list[dict]:
    return [{"task": t, "kernel": k, "expected": e, "status": verdicts[i].status,
             "runtime_us": verdicts[i].runtime_us, "speedup_eager": verdicts[i].speedup_eager,
             "stages": verdicts[i].stage_seconds} for i, (t, k, e, _) in enumerate(batch)]


def run_ray(batch, device: str, actors: int, actor_workers: int, cache: str) -> dict:
    """The batch through `RayExecutor` (N actors on the visible GPUs, each a sandbox of ``actor_workers``)."""
    import ray

    from leap.integrations.ray_executor import RayExecutor
    from leap.sandbox import SandboxConfig
    from leap.tasks.suite import get_builtin

    tasks = {t: get_builtin(t) for t, *_ in batch}
    cfg = SandboxConfig(workers=actor_workers, cache_dir=cache)
    t_start = time.monotonic()
    ray.init(include_dashboard=False, log_to_driver=False)
    gpus = ray.cluster_resources().get("GPU", 0)
    share = max(gpus, 1) / actors if device == "cuda" else 1.0
    with RayExecutor(cfg, device=device, actors=actors, gpus_per_actor=share, cpus_per_actor=0.5,
                     actor_concurrency=actor_workers) as ex:
        ray.get([a.pid.remote() for a in ex.actors])  # actors up and their pools warm
        warm = time.monotonic() - t_start
        t0 = time.monotonic()
        verdicts = dict(ex.verify_many([(tasks[t], src) for t, _, _, src in batch]))
        wall = time.monotonic() - t0
        retried = ex.retried
    ray.shutdown()
    rows = _rows(batch, verdicts)
    return {"wall_s": wall, "startup_s": warm, "rows": rows, "actors": actors, "actor_workers": actor_workers,
            "gpus_per_actor": share, "retried": retried}


def run_service(batch, device: str, workers: int, cache: str) -> dict:
    """The batch through `leap sandbox serve` (a real process on loopback, started and stopped by the tests'
    `loopback.leap_server`) and `RemoteSandbox`."""
    import secrets

    from leap.sandbox import RemoteSandbox
    from leap.tasks.suite import get_builtin

    spec = importlib.util.spec_from_file_location("loopback", ROOT / "tests/integration/loopback.py")
    loopback = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loopback)
    tasks = {t: get_builtin(t) for t, *_ in batch}
    token = secrets.token_hex(16)
    env = {**os.environ, "LEAP_SANDBOX_TOKEN": token, "LEAP_CACHE_DIR": cache,
           "PYTHONPATH": os.pathsep.join(p for p in (loopback.SRC, os.environ.get("PYTHONPATH")) if p)}
    t_start = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="leap-serve-") as d, loopback.leap_server(
            ["sandbox", "serve", "--device", device, "--workers", str(workers)], Path(d) / "serve.log",
            env=env) as (url, _):
        warm = time.monotonic() - t_start
        with RemoteSandbox(url, token, batch=len(batch)) as remote:
            t0 = time.monotonic()
            verdicts = dict(remote.verify_many([(tasks[t], src) for t, _, _, src in batch]))
            wall = time.monotonic() - t0
    return {"wall_s": wall, "startup_s": warm, "rows": _rows(batch, verdicts), "workers": workers}


def run_naive(batch, device: str, timeout: float) -> dict:
    from leap.tasks.suite import get_builtin

    rows = []
    t0 = time.monotonic()
    for task, name, exp, src in batch:
        with tempfile.TemporaryDirectory(prefix="leap-naive-") as d:
            tp, cp = os.path.join(d, "task.py"), os.path.join(d, "cand_src.py")
            Path(tp).write_text(get_builtin(task).source)
            Path(cp).write_text(src)
            env = {**os.environ, "TORCH_EXTENSIONS_DIR": os.path.join(d, "ext")}
            t = time.monotonic()
            try:
                p = subprocess.run([sys.executable, "-c", NAIVE, tp, cp, device], capture_output=True, text=True,
                                   timeout=timeout, env=env)
                line = [ln for ln in p.stdout.splitlines() if ln.startswith("NAIVE_RESULT ")]
                res = json.loads(line[-1][13:]) if line else {"status": "runtime_error", "stages": {}}
            except subprocess.TimeoutExpired:
                res = {"status": "timeout", "stages": {}}
            res["stages"]["total"] = time.monotonic() - t
        rows.append({"task": task, "kernel": name, "expected": exp, **res})
    return {"wall_s": time.monotonic() - t0, "rows": rows}


def run_repeat(device: str, times: int, cache: str, inline: bool = True) -> dict:
    from leap.sandbox import Sandbox, SandboxConfig
    from leap.tasks.suite import get_builtin

    items = [(t, k) for t, k in REPEAT if (device == "cuda" or not k.startswith(("NVRTC", "INLINE")))
             and (inline or not k.startswith("INLINE"))]
    out: dict = {}
    with Sandbox(SandboxConfig(workers=1, cache_dir=cache), device=device) as sb:
        for task, name in items:
            vs = [sb.verify(get_builtin(task), getattr(K, name)) for _ in range(times)]
            out[f"{task}/{name}"] = {"status": [v.status for v in vs], "runtime_us": [v.runtime_us for v in vs],
                                    "speedup_eager": [v.speedup_eager for v in vs],
                                    "total_s": [v.stage_seconds.get("total") for v in vs]}
    return out


def _median_stages(rows) -> dict[str, float]:
    keys = sorted({k for r in rows for k in r["stages"]})
    return {k: statistics.median([r["stages"][k] for r in rows if k in r["stages"]]) for k in keys}


def _spread(xs) -> float | None:
    xs = [x for x in xs if x]
    return (max(xs) / min(xs) - 1.0) if len(xs) >= 2 else None


def report(res: dict, out_md: Path) -> str:
    lines = [f"# Sandbox throughput ({res['device']})", "",
             f"- date: {res['date']}", f"- command: `{res['command']}`", f"- machine: {res['machine']}", ""]
    pool, naive = res.get("pool"), res.get("naive")
    lines += ["| run | candidates | wall (s) | candidates/min | median total (s) |", "|---|---|---|---|---|"]
    ray_r, svc = res.get("ray"), res.get("service")
    for name, r in (("pool", pool), ("naive", naive), ("ray", ray_r), ("service", svc)):
        if r:
            if name == "ray":
                name = f"ray ({r['actors']} actors x {r['actor_workers']} workers)"
            if name == "service":
                name = "service (`leap sandbox serve` + `RemoteSandbox`)"
            n = len(r["rows"])
            med = statistics.median([x["stages"].get("total", 0) for x in r["rows"]])
            lines.append(f"| {name} | {n} | {r['wall_s']:.1f} | {60 * n / r['wall_s']:.1f} | {med:.2f} |")
    if pool and naive:
        rate = {k: len(r["rows"]) / r["wall_s"] for k, r in (("pool", pool), ("naive", naive))}
        lines.append(f"\nThroughput ratio pool/naive (candidates per minute): **{rate['pool'] / rate['naive']:.1f}x**")
        agree = sum(a["status"] == b["status"] for a, b in zip(pool["rows"], naive["rows"], strict=False))
        lines.append(f"\nVerdict agreement (candidates both ran): {agree}/{min(len(pool['rows']), len(naive['rows']))}")
        dis = [(a["kernel"], a["status"], b["status"]) for a, b in zip(pool["rows"], naive["rows"], strict=False)
               if a["status"] != b["status"]]
        for k, a, b in dis[:10]:
            lines.append(f"- {k}: pool {a}, naive {b}")
    if pool:
        exp = sum(r["status"] == r["expected"] for r in pool["rows"])
        med = _median_stages(pool["rows"])
        lines += [f"\nPool: {pool.get('workers', '?')} workers, compile pass {pool.get('compile_pass', 'off')}; "
                  f"verdicts as expected: {exp}/{len(pool['rows'])}", "",
                  "Summed seconds per stage over all candidates (pool): " +
                  ", ".join(f"{k}={sum(r['stages'].get(k, 0) for r in pool['rows']):.1f}" for k in med), "",
                  "Median latency per stage (pool, s): " + ", ".join(f"{k}={v:.3f}" for k, v in med.items())]
        if pool.get("gpu_peak_used_gib") is not None:
            lines += ["", f"GPU memory (device-wide, sampled every 20 ms): peak used {pool['gpu_peak_used_gib']} GiB "
                      f"of {pool['gpu_total_gib']} GiB; the judge's budget for concurrent checks "
                      f"{pool['judge_budget_gib']} GiB"]
        bad = [(r["kernel"], r["expected"], r["status"], " ".join(f"{r.get('feedback', '')} {r.get('detail', '')}".split())[:400])
               for r in pool["rows"] if r["status"] != r["expected"]]
        for k, e, s, why in bad[:10]:
            lines.append(f"- unexpected: {k} expected {e}, got {s}: {why}")
    for name, r in (("ray", ray_r), ("service", svc)):
        if r and pool:
            same = sum(a["status"] == b["status"] for a, b in zip(pool["rows"], r["rows"], strict=False))
            lines.append(f"\n{name} vs pool: verdict statuses identical {same}/{len(r['rows'])}; "
                         f"throughput ratio {name}/pool {len(r['rows']) / r['wall_s'] / (len(pool['rows']) / pool['wall_s']):.2f}x; "
                         f"start-up {r['startup_s']:.1f} s" + (f"; retried {r['retried']}" if "retried" in r else ""))
            for a, b in zip(pool["rows"], r["rows"], strict=False):
                if a["status"] != b["status"]:
                    lines.append(f"- {a['kernel']}: pool {a['status']}, {name} {b['status']}")
    if naive:
        lines.append("\nMedian latency per stage (naive, s): " +
                     ", ".join(f"{k}={v:.3f}" for k, v in _median_stages(naive["rows"]).items()))
    if res.get("repeat"):
        lines += ["", "## Repeatability (same kernel, 5 separate verifications)", "",
                  "| kernel | statuses | median runtime (us) | speedups | spread |", "|---|---|---|---|---|"]
        for k, r in res["repeat"].items():
            rts = [x for x in r["runtime_us"] if x]
            sp = _spread(r["speedup_eager"])
            lines.append(f"| {k} | {','.join(sorted(set(r['status'])))} | "
                         f"{statistics.median(rts) if rts else float('nan'):.1f} | "
                         f"{', '.join(f'{x:.3f}' for x in r['speedup_eager'] if x) or '-'} | "
                         f"{f'{100 * sp:.2f}%' if sp is not None else '-'} |")
    text = "\n".join(lines) + "\n"
    out_md.parent.mkdir(parents=True, exist_ok=True)
    out_md.write_text(text)
    return text


def _machine(device: str) -> str:
    desc = f"{platform.node()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
    try:
        import torch
        import triton

        desc += f", torch {torch.__version__}, triton {triton.__version__}"
        if device == "cuda":
            desc += f", {torch.cuda.device_count()}x {torch.cuda.get_device_name(0)}"
    except Exception:  # noqa: BLE001
        pass
    return desc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="CPU smoke run (Triton interpreter, small batch)")
    ap.add_argument("--mode", default="all", choices=["all", "pool", "naive", "repeat", "ray", "service",
                                                              "report"])
    ap.add_argument("--actors", type=int, default=4, help="ray: sandbox actors (sharing the visible GPUs)")
    ap.add_argument("--actor-workers", type=int, default=0, help="ray: workers per actor (0 = 8 / actors)")
    ap.add_argument("--device", default=None, choices=["cpu", "cuda"])
    ap.add_argument("--n", type=int, default=30, help="non-inline candidates in the mixed batch")
    ap.add_argument("--n-inline", type=int, default=2, help="cuda_inline candidates (each compiles ~1 min)")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--no-compile-pass", action="store_true", help="pool: compile Triton kernels inside the "
                    "first trial (under the GPU lock), as before the compile pass existed")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--timeout", type=float, default=300.0, help="naive baseline per-candidate limit (s)")
    ap.add_argument("--results", type=Path, default=None, help="JSON results file (merged across modes)")
    ap.add_argument("--out", type=Path, default=None, help="Markdown report")
    args = ap.parse_args()
    if args.quick:
        args.device = args.device or "cpu"
        args.n = min(args.n, 8)
        args.repeats = min(args.repeats, 2)
    if args.device is None:
        import torch

        args.device = "cuda" if torch.cuda.is_available() else "cpu"
    tag = "gpu" if args.device == "cuda" else "cpu"
    results = args.results or ROOT / "docs" / f"sandbox_throughput_{tag}.json"
    out_md = args.out or ROOT / "docs" / f"sandbox_throughput_{tag}.md"
    res = json.loads(results.read_text()) if results.exists() and args.mode != "all" else {}
    res.update(device=args.device, date=datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               command="python " + " ".join(sys.argv), machine=_machine(args.device))
    batch = build_batch(args.quick, args.device, args.n, 0 if args.quick else args.n_inline)
    # a fresh cache, not under /tmp (the candidate's private tmp mounts would hide it from the candidate)
    cache = str(Path.home() / ".cache" / f"leap-bench-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}")
    if args.mode in ("all", "pool"):
        res["pool"] = run_pool(batch, args.device, args.workers, cache, not args.no_compile_pass)
        print(f"pool: {len(batch)} candidates in {res['pool']['wall_s']:.1f} s", flush=True)
    if args.mode in ("all", "naive"):
        res["naive"] = run_naive(batch, args.device, args.timeout)
        print(f"naive: {len(batch)} candidates in {res['naive']['wall_s']:.1f} s", flush=True)
    if args.mode == "ray":
        aw = args.actor_workers or max(1, 8 // args.actors)
        res["ray"] = run_ray(batch, args.device, args.actors, aw, cache)
        print(f"ray: {len(batch)} candidates in {res['ray']['wall_s']:.1f} s", flush=True)
    if args.mode == "service":
        res["service"] = run_service(batch, args.device, args.workers, cache)
        print(f"service: {len(batch)} candidates in {res['service']['wall_s']:.1f} s", flush=True)
    if args.mode in ("all", "repeat"):
        res["repeat"] = run_repeat(args.device, args.repeats, cache, inline=args.n_inline > 0)
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(res, indent=1, default=str))
    print(report(res, out_md))
    print(f"wrote {out_md} and {results}")


if __name__ == "__main__":
    main()
