"""The calls of the task's allowed library ops (its GEMMs, convolutions: `compute_guard.LIBRARY_CALLS`) the
reference makes in one forward, by shape (`compute_guard.library_signature`), recorded on the meta device
(nothing allocated). The CPU judge's backstop holds a candidate's forward to those calls: the allow-list lets a
solution keep the reference's own library calls, not add others to compute what its kernel should (red-team
rounds 25-26: a pooling as a second convolution, a mean as a matmul with a 1/N column, a residual add as
``addmm(x, s, I)``, a GEMM moved into an own kernel to spend the freed call on the mean).
"""

from __future__ import annotations

import threading
import types
from typing import Any

from torch.utils._python_dispatch import TorchDispatchMode

from leap.sandbox.worker.compute_guard import LIBRARY_CALLS, library_signature

_CACHE: dict[tuple, tuple[tuple, ...] | None] = {}
_LOCK = threading.Lock()


class _Record(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.calls: list[tuple] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        name = getattr(func, "overloadpacket", func).__name__
        if name in LIBRARY_CALLS:
            self.calls.append(library_signature(name, args))
        return func(*args, **(kwargs or {}))


def library_calls(module: types.ModuleType, init_inputs: list[Any], small: bool) -> tuple[tuple, ...] | None:
    """The reference's `LIBRARY_CALLS` in one forward on its (``small``) inputs, as signatures; None when it cannot
    run on the meta device (then no limit applies)."""
    from leap.sandbox.judge.task_module import get_inputs, meta_bytes

    record = _Record()

    def forward():
        model = module.Model(*init_inputs)
        inputs = get_inputs(module, small)
        with record:
            model(*inputs)
        return ()

    return None if meta_bytes(forward) is None else tuple(record.calls)


def task_library_calls(task) -> tuple[tuple, ...] | None:
    """`library_calls` of ``task`` on the CPU judge's (small) inputs, once per task source."""
    from leap.sandbox.judge.task_module import init_inputs, load_task_module
    from leap.sandbox.judge.verifier import INIT_SEED

    key = (task.name, task.source_hash)
    with _LOCK:
        if key in _CACHE:
            return _CACHE[key]
    try:
        module = load_task_module(task.source, task.name)
        n = library_calls(module, list(init_inputs(module, INIT_SEED)), small=True)
    except Exception:  # noqa: BLE001 - the check itself meets (and reports) what broke the task
        n = None
    with _LOCK:
        _CACHE[key] = n
    return n
