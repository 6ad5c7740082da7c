"""Reference outputs and reference timings, computed in the JUDGE's process (never the candidate's).

Reference timings (eager PyTorch and ``torch.compile``) are measured once per (task source hash, input
shapes, GPU name, torch/triton/CUDA versions) and cached in ``<cache_dir>/reference_timings.json``;
writes take a file lock and replace the file atomically, so concurrent judges never see half a file.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
import types
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch

from leap.sandbox.judge.task_module import build_model, load_task_module

CACHE_FILE = "reference_timings.json"
INIT_SEED = 42
Measure = Callable[[torch.nn.Module, list, Any], tuple[float, float | None]]
Hold = Callable[[bool], contextlib.AbstractContextManager]  # hold(exclusive): the GPU's readers-writer lock


def _clone(x: Any) -> Any:
    return x.clone() if isinstance(x, torch.Tensor) else x


def _to(x: Any, device: str | torch.device | None) -> Any:
    return x.to(device) if isinstance(x, torch.Tensor) and device is not None else x


def _detach(obj: Any) -> Any:
    if isinstance(obj, torch.Tensor):
        return obj.detach()
    if isinstance(obj, list | tuple):
        return type(obj)(_detach(o) for o in obj)
    return obj


def reference_output(model: torch.nn.Module, inputs: Sequence[Any], device: str | torch.device | None = None) -> Any:
    """``model(*inputs)`` on cloned copies of ``inputs``, without autograd. ``device=None`` keeps the inputs
    where they are (trials drawn on the GPU stay there: no host round trip); else they are moved first."""
    with torch.no_grad():
        return _detach(model(*[_clone(_to(x, device)) for x in inputs]))


def reference_outputs(model: torch.nn.Module, trials: Sequence[Any],
                      device: str | torch.device | None = None) -> list[Any]:
    """Reference output of every trial (a `leap.sandbox.judge.inputs.Trial` or a plain input list)."""
    return [reference_output(model, getattr(t, "inputs", t), device) for t in trials]


def software_versions() -> dict[str, str]:
    try:
        import triton

        tv = triton.__version__
    except ImportError:
        tv = "none"
    return {"torch": torch.__version__, "triton": tv, "cuda": str(torch.version.cuda)}


def gpu_name(device: str) -> str:
    dev = torch.device(device)
    if dev.type != "cuda":
        return dev.type
    return torch.cuda.get_device_name(dev.index if dev.index is not None else torch.cuda.current_device())


def shape_signature(inputs: Sequence[Any]) -> str:
    parts = [f"{tuple(x.shape)}:{x.dtype}" if isinstance(x, torch.Tensor) else repr(x)[:40] for x in inputs]
    return ";".join(parts)


def cache_key(source_hash: str, shapes: str, gpu: str, versions: dict[str, str]) -> str:
    blob = json.dumps([source_hash, shapes, gpu, versions], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


@contextlib.contextmanager
def _locked(path: Path):
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    with open(str(path) + ".lock", "a") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lk, fcntl.LOCK_UN)


def read_cache(path: Path) -> dict[str, Any]:
    """The cache file's entries (an unreadable or corrupt file reads as empty)."""
    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_entry(path: Path, key: str, entry: dict[str, Any]) -> None:
    """Add one entry under the file lock; write a temp file and rename it over the cache (atomic)."""
    path = Path(path)
    with _locked(path):
        data = read_cache(path)
        data[key] = entry
        fd, tmp = tempfile.mkstemp(prefix=".ref_timings.", dir=str(path.parent))
        try:
            with os.fdopen(fd, "w") as f:
                json.dump(data, f, indent=1, sort_keys=True)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def measure_reference(model: torch.nn.Module, args: list, config: Any = None,
                      hold: Hold | None = None) -> tuple[float, float | None]:
    """(eager median us, torch.compile median us or None when compile fails) with the sandbox's timing.
    torch.compile's compilation (seconds of CPU) runs under ``hold(False)``, each measurement under
    ``hold(True)``, so compiling never keeps other candidates off the GPU."""
    from leap.sandbox.worker.timing import time_forward

    hold = hold or _no_hold
    kw = dict(warmup=int(getattr(config, "warmup", 5)), samples=int(getattr(config, "timing_samples", 30)),
              flush_l2=bool(getattr(config, "flush_l2", True)), host_batch=0)
    with hold(True):
        eager = time_forward(model, args, **kw).median_us
    try:
        compiled = torch.compile(model)
        with hold(False), torch.no_grad():
            compiled(*args)  # compile outside the measurement
        with hold(True):
            comp: float | None = time_forward(compiled, args, **kw).median_us
    except Exception:  # noqa: BLE001 - a model torch.compile cannot handle: eager only
        comp = None
    return float(eager), comp


def _no_hold(exclusive: bool) -> contextlib.AbstractContextManager:
    return contextlib.nullcontext()


def reference_timings(task: Any, device: str, *, inputs: Sequence[Any], init_inputs: Sequence[Any],
                      config: Any = None, seed: int = INIT_SEED, measure: Measure | None = None,
                      module: types.ModuleType | None = None, hold: Hold | None = None) -> tuple[float, float | None]:
    """(eager_us, compile_us) of the task's reference on ``device`` for ``inputs``, from the cache when a
    measurement for the same task source, shapes, GPU and software versions exists. ``hold(exclusive)``
    (the GPU's readers-writer lock) is taken shared to build and compile, exclusive only to time."""
    cache_dir = Path(getattr(config, "cache_dir", None) or os.environ.get("LEAP_CACHE_DIR") or
                     Path.home() / ".cache" / "leap")
    path = cache_dir / CACHE_FILE
    versions = software_versions()
    gpu = gpu_name(device)
    key = cache_key(task.source_hash, shape_signature(inputs), gpu, versions)
    hit = read_cache(path).get(key)
    if isinstance(hit, dict) and "eager_us" in hit:
        return float(hit["eager_us"]), (float(hit["compile_us"]) if hit.get("compile_us") is not None else None)
    mod = module or load_task_module(task.source, task.name)
    dev = torch.device(device)
    ctx = torch.cuda.device(dev) if dev.type == "cuda" else contextlib.nullcontext()
    hold = hold or _no_hold
    with ctx:
        with hold(False):
            model = build_model(mod, list(init_inputs), seed, dev)
            args = [_to(x, device) for x in inputs]
        eager, comp = measure(model, args, config) if measure else measure_reference(model, args, config, hold)
    write_entry(path, key, {"task": task.name, "gpu": gpu, "versions": versions, "eager_us": eager,
                            "compile_us": comp, "shapes": shape_signature(inputs), "measured_at": time.time()})
    return eager, comp
