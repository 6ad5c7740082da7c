"""Run a task's source: exec it into a fresh module, build its `Model` and call it under fixed seeds.

Used by validation, the generator's degenerate filter and the reference-timing bench. The sandbox
has its own judge-side loader; this one is for trusted task sources (built-in, generated, the user's).

The float64 twin of a reference (`float_keeps_double`, `double_args`) is shared by validation's conditioning
check and the judge's exact comparison (`leap.sandbox.judge.reference.exact_reference`): the same model
built afresh under its seed, ``.double()``, run on float64 copies of the inputs with ``t.float()`` keeping
float64 (a half-precision task's upcast).
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import types
from collections.abc import Callable
from typing import Any

import torch

from leap.tasks.task import Task, TaskError

_counter = itertools.count()
MODEL_SEED = 1234


def load_module(task: Task) -> types.ModuleType:
    """Exec ``task.source`` into a new module object (raises `TaskError` with one line on failure)."""
    mod = types.ModuleType(f"leap_task_{task.name}_{next(_counter)}")
    mod.__file__ = task.origin or f"<task {task.name}>"
    try:
        exec(compile(task.source, mod.__file__, "exec"), mod.__dict__)  # noqa: S102 - trusted task source
    except ModuleNotFoundError as exc:
        pkg = (exc.name or str(exc)).split(".")[0]
        raise TaskError(f"{task.origin or task.name}: needs the Python package {pkg!r}, which is not installed "
                        f"(pip install {pkg})") from None
    except Exception as exc:  # any error in a task file is reported, not raised through
        raise TaskError(f"{task.origin or task.name}: source fails to run ({type(exc).__name__}: {exc})") from None
    return mod


def input_fn(mod: types.ModuleType, small: bool) -> Callable[[], list[Any]]:
    """The task's input factory: ``get_small_inputs`` when asked and present, else ``get_inputs``."""
    if small and hasattr(mod, "get_small_inputs"):
        return mod.get_small_inputs
    return mod.get_inputs


@contextlib.contextmanager
def single_thread():
    """Run torch's CPU ops on one thread: tiny tensors are several times faster without the thread pool
    (measured 5.6x on a loaded 2-core machine)."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def seed_all(seed: int) -> None:
    """Seed the CPU generator (and CUDA's only if already initialised: seeding it first is slow)."""
    torch.random.default_generator.manual_seed(seed)
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.manual_seed_all(seed)


def make_inputs(mod: types.ModuleType, seed: int, small: bool = True) -> list[Any]:
    """Inputs drawn under ``seed`` (the same seed gives the same inputs)."""
    seed_all(seed)
    return list(input_fn(mod, small)())


def build_model(mod: types.ModuleType, device: str | torch.device = "cpu") -> torch.nn.Module:
    """``Model(*get_init_inputs())`` with weights drawn under a fixed seed, moved to ``device``."""
    seed_all(MODEL_SEED)
    model = mod.Model(*mod.get_init_inputs())
    return model.to(device)


def clone_args(args: list[Any]) -> list[Any]:
    return [a.clone() if isinstance(a, torch.Tensor) else a for a in args]


def flat_tensors(out: Any) -> list[torch.Tensor]:
    """Output tensors of a forward call (a tensor, or a tuple/list of them)."""
    if isinstance(out, torch.Tensor):
        return [out]
    if isinstance(out, list | tuple):
        return [t for o in out for t in flat_tensors(o)]
    return []


def run_reference(mod: types.ModuleType, seed: int, small: bool = True, model: torch.nn.Module | None = None
                  ) -> tuple[list[Any], list[torch.Tensor]]:
    """(inputs, output tensors) of the reference at ``seed`` on the CPU, without autograd."""
    inputs = make_inputs(mod, seed, small)
    model = model if model is not None else build_model(mod)
    with torch.no_grad():
        out = model(*clone_args(inputs))
    return inputs, flat_tensors(out)


_FLOAT_LOCK = threading.Lock()
_FLOAT_THREADS: dict[int, int] = {}  # thread id -> depth of float_keeps_double in it
_FLOAT_ORIG: list[Callable[..., torch.Tensor]] = []  # torch.Tensor.float as it was when the patch went in


def _float_kept(self: torch.Tensor, *args: Any, **kwargs: Any) -> torch.Tensor:
    if self.dtype == torch.float64 and threading.get_ident() in _FLOAT_THREADS:
        return self
    return _FLOAT_ORIG[0](self, *args, **kwargs)


@contextlib.contextmanager
def float_keeps_double():
    """During a float64 twin's run, ``t.float()`` of a float64 tensor keeps float64 (a half-precision task's
    upcast would otherwise drop the twin back to fp32). Only in the calling thread: the judge runs other
    candidates' references in other threads meanwhile, and their ``.float()`` must stay what it is."""
    me = threading.get_ident()
    with _FLOAT_LOCK:
        if not _FLOAT_THREADS:
            _FLOAT_ORIG[:] = [torch.Tensor.float]
            torch.Tensor.float = _float_kept
        _FLOAT_THREADS[me] = _FLOAT_THREADS.get(me, 0) + 1
    try:
        yield
    finally:
        with _FLOAT_LOCK:
            _FLOAT_THREADS[me] -= 1
            if not _FLOAT_THREADS[me]:
                del _FLOAT_THREADS[me]
            if not _FLOAT_THREADS:
                torch.Tensor.float = _FLOAT_ORIG[0]


def double_args(args: list[Any]) -> list[Any]:
    """Float64 (complex128) copies of the floating tensors in ``args`` (always copies: a float64 input is
    not shared with the twin, which might write into it), clones of other tensors, other values as they are."""
    out = []
    for a in args:
        if isinstance(a, torch.Tensor):
            wide = torch.float64 if a.is_floating_point() else torch.complex128 if a.is_complex() else None
            a = a.detach().to(wide, copy=True) if wide is not None else a.detach().clone()
        out.append(a)
    return out


def tensors_in(obj) -> list:
    """The tensors in a nest of lists, tuples and dicts, in order."""
    if isinstance(obj, torch.Tensor):
        return [obj]
    if isinstance(obj, list | tuple):
        return [t for o in obj for t in tensors_in(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in tensors_in(o)]
    return []
