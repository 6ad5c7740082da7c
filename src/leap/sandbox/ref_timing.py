"""Reference timings (eager PyTorch and torch.compile) on the judge side, cached per
(task, GPU model, software versions) in memory and in ``<cache_dir>/ref_timings.json``.

Uses the judge engineer's `leap.sandbox.reference.reference_timings` when present. Called with the
GPU's timing lock held, on the same inputs (trial 0, the task's own distribution) the child times.
"""

from __future__ import annotations

import json
import os
import threading

import torch

_FILE_LOCK = threading.Lock()


def _key(task, gpu: int) -> str:
    name = torch.cuda.get_device_name(gpu)
    import triton

    return "|".join([task.name, task.source_hash, name, torch.__version__, str(torch.version.cuda),
                     triton.__version__])


def reference_times(task, gpu: int, prep, cfg, memo: dict) -> tuple[float | None, float | None]:
    key = _key(task, gpu)
    if key in memo:
        return memo[key]
    path = os.path.join(str(cfg.cache_dir), "ref_timings.json")
    with _FILE_LOCK:
        disk = _read(path)
    if key in disk:
        memo[key] = tuple(disk[key])
        return memo[key]
    times = _measure(task, gpu, prep, cfg)
    memo[key] = times
    with _FILE_LOCK:
        disk = _read(path)
        disk[key] = list(times)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(disk, f, indent=1)
        os.replace(tmp, path)
    return times


def _read(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _measure(task, gpu: int, prep, cfg) -> tuple[float | None, float | None]:
    try:
        from leap.sandbox import reference as judge_ref
    except ImportError:
        judge_ref = None
    if judge_ref is not None and hasattr(judge_ref, "reference_timings"):
        return judge_ref.reference_timings(task, f"cuda:{gpu}", inputs=prep.trials[0].inputs,
                                           init_inputs=prep.init_inputs, config=cfg)
    from leap.sandbox import judge_shim as J
    from leap.sandbox.child_timing import fallback_measure
    from leap.sandbox.verifier import INIT_SEED

    dev = f"cuda:{gpu}"
    with torch.cuda.device(gpu), torch.no_grad():
        module = J.load_task_module(task.source, task.name)
        model = J.build_reference(module, prep.init_inputs, INIT_SEED, dev)
        args = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in prep.trials[0].inputs]
        eager = fallback_measure(model, args, cfg.warmup, cfg.timing_samples, cfg.flush_l2)["median_us"]
        try:
            compiled = torch.compile(model)
            comp = fallback_measure(compiled, args, max(cfg.warmup, 3), cfg.timing_samples, cfg.flush_l2)["median_us"]
        except Exception:  # noqa: BLE001 - torch.compile unavailable for this model: eager only
            comp = None
    return float(eager), (float(comp) if comp is not None else None)
