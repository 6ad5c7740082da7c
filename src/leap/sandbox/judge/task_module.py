"""A task's source as a live module on the judge side, and seeded construction of its `Model`.

The judge execs the (trusted) task source into a fresh module object with a unique name, so two
tasks, or two evaluations of one task, never share module state. `build_model` seeds torch before
``Model(*init_inputs)``; the candidate's child does the same with the same seed before
``ModelNew(*init_inputs)``, so both draw identical parameters when they create them in the same order.
"""

from __future__ import annotations

import contextlib
import itertools
import re
import threading
import types
from collections.abc import Callable, Iterable
from typing import Any

import torch

_counter = itertools.count()
# Seeding torch's global generator and drawing from it must not interleave between judge threads (the
# scheduler prepares candidates concurrently): every seeded draw in the judge holds this lock.
RNG_LOCK = threading.RLock()


class TaskModuleError(ValueError):
    """A task source that cannot be used; the message is one line naming the task and the problem."""


def module_name(name: str) -> str:
    """A unique, importable-looking module name for one load of task ``name``."""
    safe = re.sub(r"[^0-9A-Za-z_]", "_", name) or "task"
    return f"leap_task_{safe}_{next(_counter)}"


def load_task_module(task_source: str, name: str) -> types.ModuleType:
    """Exec ``task_source`` into a new module object (never registered in ``sys.modules``)."""
    mod = types.ModuleType(module_name(name))
    mod.__file__ = f"<task {name}>"
    try:
        code = compile(task_source, mod.__file__, "exec")
    except SyntaxError as exc:
        raise TaskModuleError(f"task {name}: not valid Python (line {exc.lineno}: {exc.msg})") from None
    try:
        exec(code, mod.__dict__)  # noqa: S102 - task sources are trusted (built-in, generated, the user's)
    except Exception as exc:  # noqa: BLE001 - reported in one line
        raise TaskModuleError(f"task {name}: source fails to run ({type(exc).__name__}: {exc})") from None
    for attr in ("Model", "get_inputs", "get_init_inputs"):
        if not callable(getattr(mod, attr, None)):
            raise TaskModuleError(f"task {name}: missing {attr} (a KernelBench task defines class Model, "
                                  "get_inputs() and get_init_inputs())")
    return mod


def _call(module: types.ModuleType, fn_name: str) -> list[Any]:
    """``module.fn_name()`` as a list; a failure is the task's (`TaskModuleError`) unless the judge ran out of
    memory (`MemoryError`, ``torch.OutOfMemoryError``), which propagates as it is: the judge's problem."""
    try:
        value = getattr(module, fn_name)()
    except (MemoryError, torch.OutOfMemoryError):
        raise
    except Exception as exc:  # noqa: BLE001
        raise TaskModuleError(f"{module.__file__}: {fn_name}() failed ({type(exc).__name__}: {exc})") from None
    if not isinstance(value, list | tuple):
        raise TaskModuleError(f"{module.__file__}: {fn_name}() must return a list (got {type(value).__name__})")
    return list(value)


@contextlib.contextmanager
def seeded(seed: int):
    """torch's global generators seeded with ``seed`` inside, restored after (CPU, and CUDA once initialised):
    the judge shares its process with the caller (a trainer samples from these generators)."""
    if not torch.cuda.is_initialized():  # the CPU's generator only: torch.manual_seed would queue a CUDA
        with RNG_LOCK, torch.random.fork_rng(devices=[]):  # seed for later initialisation, which outlives this
            torch.default_generator.manual_seed(seed)
            yield
        return
    with RNG_LOCK, torch.random.fork_rng(devices=list(range(torch.cuda.device_count()))):
        torch.manual_seed(seed)
        yield


def init_inputs(module: types.ModuleType, seed: int) -> list[Any]:
    """``get_init_inputs()`` under ``seed``."""
    with seeded(seed):
        return _call(module, "get_init_inputs")


def get_inputs(module: types.ModuleType, small: bool) -> list[Any]:
    """The task's inputs: ``get_small_inputs()`` when ``small`` and the task defines it, else ``get_inputs()``.
    Draws from torch's global generator: seed it first (`leap.sandbox.judge.inputs` does)."""
    fn = "get_small_inputs" if small and callable(getattr(module, "get_small_inputs", None)) else "get_inputs"
    return _call(module, fn)


class HostRoomError(MemoryError):
    """A task too large for the judge's host, found from its meta-device plan before any allocation."""


def host_available_bytes() -> int | None:
    """The host memory the kernel reports as available (``MemAvailable``), or ``None`` where unknown."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def require_host_room(need: int | None, what: str, share: float = 0.5) -> None:
    """`HostRoomError` (the judge's problem, never the candidate's) when ``need`` bytes are more than ``share`` of
    the host's available memory: allocating them could get the judge's process killed by the OS (where memory
    is overcommitted, a 1 TiB ``torch.rand`` succeeds and the process dies touching its pages)."""
    room = host_available_bytes()
    if need is not None and room is not None and need > share * room:
        raise HostRoomError(f"{what} need {need / 2**30:.1f} GiB; the host has {room / 2**30:.1f} GiB available")


def meta_bytes(make: Callable[[], Iterable[Any]], lock: bool = True) -> int | None:
    """The bytes of the tensors ``make()`` returns when run on the meta device (nothing allocated), or ``None``
    when it cannot run there (it reads values, calls numpy, ...): then the real allocation decides. ``lock``:
    hold `RNG_LOCK` (a task's code may seed the global generator); meta tensors themselves draw nothing."""
    try:
        with RNG_LOCK if lock else contextlib.nullcontext(), torch.device("meta"):
            made = list(make())
    except Exception:  # noqa: BLE001 - unknown
        return None
    return sum(t.numel() * t.element_size() for t in made if isinstance(t, torch.Tensor))


def planned_model_bytes(module: types.ModuleType, init_inputs: list[Any]) -> int | None:
    """The bytes of ``Model(*init_inputs)``'s parameters and buffers, planned with `meta_bytes`."""
    def tensors():
        model = module.Model(*init_inputs)
        return (*model.parameters(), *model.buffers())

    return meta_bytes(tensors)


def build_model(module: types.ModuleType, init_inputs: list[Any], seed: int,
                device: str | torch.device = "cpu") -> torch.nn.Module:
    """``torch.manual_seed(seed)`` then ``Model(*init_inputs)``, moved to ``device`` (train mode, like the
    candidate, as KernelBench does); `MemoryError` first when its weights would not fit the host."""
    require_host_room(planned_model_bytes(module, init_inputs), "the task's Model weights")
    with seeded(seed):
        try:
            model = module.Model(*init_inputs)
        except (MemoryError, torch.OutOfMemoryError):
            raise
        except Exception as exc:  # noqa: BLE001
            raise TaskModuleError(f"{module.__file__}: Model(*init_inputs) failed ({type(exc).__name__}: "
                                  f"{exc})") from None
    return model.to(device)


def build_candidate(cls: type, init_inputs: list[Any], seed: int, device: str | torch.device = "cpu"):
    """The candidate side of `build_model`: the same seed before ``ModelNew(*init_inputs)`` (errors propagate:
    they are the candidate's)."""
    torch.manual_seed(seed)
    return cls(*init_inputs).to(device)
