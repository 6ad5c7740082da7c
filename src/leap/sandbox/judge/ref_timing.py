"""Reference timings for the scheduler: `leap.sandbox.judge.reference.reference_timings` (which keeps the disk
cache) memoised per (task, GPU) in the judge's process. A memoised timing takes no GPU lock; a new one
is measured once per key (concurrent candidates of the task wait for it) on the inputs the child times
(trial 0), holding the GPU alone only while it times (`reference.measure_reference`)."""

from __future__ import annotations

import threading

from leap.sandbox.judge import reference

_MU = threading.Lock()
_KEY_LOCKS: dict[tuple, threading.Lock] = {}


def reference_times(task, gpu: int, prep, cfg, memo: dict, hold) -> tuple[float | None, float | None]:
    """(eager_us, compile_us); ``hold(exclusive)`` is the GPU's readers-writer lock (not held by the caller)."""
    key = (task.name, task.source_hash, gpu)
    if key in memo:
        return memo[key]
    with _MU:
        lock = _KEY_LOCKS.setdefault(key, threading.Lock())
    with lock:
        if key not in memo:
            memo[key] = reference.reference_timings(task, f"cuda:{gpu}", inputs=prep.trials[0].inputs,
                                                    init_inputs=prep.init_inputs, config=cfg, hold=hold)
    return memo[key]
