"""Reference timings for the scheduler: `leap.sandbox.judge.reference.reference_timings` (which keeps the disk
cache) memoised per (task, GPU) in the judge's process. A memoised timing takes no GPU lock; a new one
is measured once per key (concurrent candidates of the task wait for it) on the inputs the child times
(trial 0), holding the GPU alone only while it times (`reference.measure_reference`). `prefetch` starts
that measurement in the background when a task's first candidate starts its run, so the candidate does
not wait for `torch.compile` after its run."""

from __future__ import annotations

import dataclasses
import threading

from leap.sandbox.judge import reference

_MU = threading.Lock()
_KEY_LOCKS: dict[tuple, threading.Lock] = {}
_STARTED: set[tuple] = set()  # keys a prefetch thread is measuring


def prefetch(task, gpu: int, prep, cfg, memo: dict, hold) -> threading.Thread | None:
    """Measure the task's reference timings in a daemon thread unless they are memoised or being measured.
    A failure is left for `reference_times` to meet again (and report) when a correct candidate asks."""
    key = (task.name, task.source_hash, gpu)
    with _MU:
        if key in memo or key in _STARTED:
            return None
        _STARTED.add(key)

    # the thread keeps trial 0's inputs alive, not the candidate's whole set of trials and reference outputs
    lean = dataclasses.replace(prep, trials=prep.trials[:1], refs=[])

    def run() -> None:
        try:
            reference_times(task, gpu, lean, cfg, memo, hold)
        except Exception:  # noqa: BLE001 -- measured again, and reported, by the candidate that needs it
            pass
        finally:
            with _MU:
                _STARTED.discard(key)

    t = threading.Thread(target=run, name=f"ref-timing-{task.name}", daemon=True)
    t.start()
    return t


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
