"""Reference outputs and reference timings, computed in the JUDGE's process (never the candidate's).

Reference timings (eager PyTorch and ``torch.compile``) are measured once per (task source hash, input
shapes, GPU name, torch/triton/CUDA versions) and cached in ``<cache_dir>/reference_timings.json``;
writes take a file lock and replace the file atomically, so concurrent judges never see half a file.

`exact_reference` is the exact answer of a trial for `leap.sandbox.judge.compare` (asked for only when a
trial failed on values): the float64 twin of the reference, built and run as validation's conditioning
check does (`leap.tasks.module.float_keeps_double`, `double_args`), run twice under different seeds (a
forward that draws random numbers has no exact answer), twice more on inputs carrying rounding noise of the
reference's working precision (how well conditioned each value of the answer is), within the memory the judge
may take: four float64 forwards, for a failing trial only.
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from leap.sandbox.judge.task_module import (
    HostRoomError,
    build_model,
    load_task_module,
    planned_model_bytes,
    require_host_room,
    seeded,
)
from leap.tasks.module import double_args, float_keeps_double, tensors_in

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


EXACT_SEEDS = (0xE1, 0xE2)  # the float64 twin runs once under each: equal outputs or it is random
EXACT_ROOM = 8  # float64 bytes of the inputs and output, times this, must fit (the twin's work, the comparison)
# Rounding noise as a perturbation of every floating input: x * (1 + perturb * z), z ~ N(0, 1), with perturb the
# larger of PERTURB (4 units of fp32 roundoff: on KernelBench's SDPA at x100 a correct Triton kernel needed 1-2,
# 10 draws of 10, where its rounding errors fall on other elements than PyTorch's) and one unit of roundoff of the
# reference's working precision (`perturbation`: a bf16 task's q, k, v are bf16 in any kernel).
PERTURB = 4 * 2.0 ** -24
PERTURB_SEEDS = (0x9E7, 0x9E8)  # two draws of the noise, the larger change kept: a near-tie flips either way


@dataclass
class Exact:
    """The exact answer of one trial: ``output``, the float64 twin's output (None: not available, ``why``);
    ``spread``, shaped like it, ``|twin(perturbed inputs) - output|`` per floating tensor (how far rounding
    noise in the inputs moves each value of the exact answer: its conditioning), None elsewhere."""

    output: Any = None
    spread: Any = None
    why: str = ""


def _float_bytes(obj: Any) -> int:
    """Bytes of ``obj``'s tensors (nested lists/tuples/dicts) in float64 (complex128)."""
    return sum(t.numel() * (16 if t.is_complex() else 8) for t in tensors_in(obj))


def _room(need: int, device: torch.device) -> str:
    """Why ``need`` bytes for the twin do not fit ``device`` ("" when they do)."""
    if device.type == "cuda":
        free, _ = torch.cuda.mem_get_info(device)
        return "" if need <= free // 2 else f"it needs {need / 2**30:.1f} GiB, the GPU has {free / 2**30:.1f} free"
    try:
        require_host_room(need, "the float64 reference", share=0.25)
    except HostRoomError as exc:
        return str(exc)
    return ""


def perturbation(inputs: Sequence[Any], ref_output: Any) -> float:
    """The relative rounding noise the spread is measured with: the larger of `PERTURB` and the unit roundoff of
    the least precise floating dtype among the trial's inputs and the reference's outputs."""
    eps = [torch.finfo(t.dtype).eps for t in tensors_in(list(inputs)) + tensors_in(ref_output)
           if t.is_floating_point()]
    return max([PERTURB] + [e / 2 for e in eps])


def _perturbed(args: list[Any], device: torch.device, scale: float, seed: int) -> list[Any]:
    """``args`` (float64 copies) with every floating tensor times ``1 + scale * z`` (zeros and signs kept)."""
    gen = torch.Generator(device=device).manual_seed(seed)
    out = []
    for a in args:
        if isinstance(a, torch.Tensor) and (a.is_floating_point() or a.is_complex()):
            z = torch.randn(a.shape, generator=gen, dtype=a.dtype, device=a.device)
            a = a * z.mul_(scale).add_(1)
        out.append(a)
    return out


def _spread(moved: Any, exact: Any, before: Any = None) -> Any:
    """``|moved - exact|`` per floating tensor of two outputs shaped alike (non-finite differences count 0),
    the elementwise max with ``before`` (an earlier spread) where given; None where a leaf is not a floating
    tensor or the shapes differ."""
    if isinstance(exact, torch.Tensor):
        if not (isinstance(moved, torch.Tensor) and moved.shape == exact.shape
                and (exact.is_floating_point() or exact.is_complex())):
            return None
        d = torch.sub(moved.to(exact.dtype), exact).abs()
        d = torch.where(torch.isfinite(d), d, 0.0)
        return torch.maximum(d, before) if isinstance(before, torch.Tensor) else d
    if isinstance(exact, list | tuple) and isinstance(moved, list | tuple) and len(moved) == len(exact):
        old = before if isinstance(before, list | tuple) else [None] * len(exact)
        vals = [_spread(m, e, b) for m, e, b in zip(moved, exact, old, strict=True)]
        return vals if isinstance(exact, list) else tuple(vals)
    if isinstance(exact, dict) and isinstance(moved, dict):
        old = before if isinstance(before, dict) else {}
        return {k: _spread(moved.get(k), v, old.get(k)) for k, v in exact.items()}
    return None


def exact_reference(module: types.ModuleType, init_inputs: Sequence[Any], inputs: Sequence[Any], *,
                    device: str | torch.device = "cpu", seed: int = INIT_SEED, ref_output: Any = None,
                    twin: list | None = None) -> Exact:
    """The exact answer (`Exact`) of the reference on ``inputs`` (moved to ``device``): its float64 twin's
    output and that output's spread under rounding noise in the inputs (`perturbation`); or why there is none:
    the twin cannot be built or run, it draws random numbers (two runs under different seeds differ), or
    it would not fit the memory (``ref_output`` sizes the output). ``twin``: a one-element cache list for the
    built twin (several failing trials of one check build it once). Never raises for the task's failures."""
    from leap.sandbox.judge.compare import bit_identical

    dev = torch.device(device)
    need = EXACT_ROOM * (_float_bytes(list(inputs)) + _float_bytes(ref_output))
    try:
        if not (twin and twin[0] is not None):  # the twin's weights, in float64 (twice fp32's)
            need += 2 * (planned_model_bytes(module, list(init_inputs)) or 0)
        why = _room(need, dev)
        if why:
            return Exact(why=f"no room for the float64 reference: {why}")
        if twin and twin[0] is not None:
            model = twin[0]
        else:
            model = build_model(module, list(init_inputs), seed, dev).double()
            if twin is not None:
                twin[:] = [model]

        def run(args: list[Any], s: int) -> Any:
            with seeded(s), torch.no_grad(), float_keeps_double():
                return _detach(model(*args))

        args = double_args([_to(x, dev) for x in inputs])
        exact = run(args, EXACT_SEEDS[0])
        if not bit_identical(exact, run(double_args(args), EXACT_SEEDS[1])):
            return Exact(why="the reference draws random numbers (two float64 runs differ)")
        scale, spread = perturbation(inputs, ref_output), None
        for p_seed in PERTURB_SEEDS:
            spread = _spread(run(_perturbed(args, dev, scale, p_seed), EXACT_SEEDS[0]), exact, spread)
        return Exact(exact, spread)
    except Exception as exc:  # noqa: BLE001 - the task's code in float64 (and out of memory): no exact answer
        text = str(exc).splitlines()[0][:160] if str(exc) else ""
        return Exact(why=f"the float64 reference fails ({type(exc).__name__}: {text})")


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
