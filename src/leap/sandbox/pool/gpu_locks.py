"""Per-GPU readers-writer locks: correctness work (children's trial runs, the judge's references and
comparisons) shares a GPU; timing takes it exclusively, so nothing else runs on that GPU while a
candidate (or a reference) is timed. Writers are preferred, so timing is never starved."""

from __future__ import annotations

import itertools
import threading
from contextlib import contextmanager


class RWLock:
    """Many shared holders or one exclusive holder; a waiting exclusive request blocks new shared ones."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._readers = 0
        self._writer = False
        self._writers_waiting = 0

    def acquire(self, exclusive: bool) -> None:
        with self._cond:
            if exclusive:
                self._writers_waiting += 1
                try:
                    self._cond.wait_for(lambda: not self._writer and self._readers == 0)
                finally:
                    self._writers_waiting -= 1
                self._writer = True
            else:
                self._cond.wait_for(lambda: not self._writer and self._writers_waiting == 0)
                self._readers += 1

    def release(self, exclusive: bool) -> None:
        with self._cond:
            if exclusive:
                self._writer = False
            else:
                self._readers -= 1
            self._cond.notify_all()

    @contextmanager
    def hold(self, exclusive: bool):
        self.acquire(exclusive)
        try:
            yield
        finally:
            self.release(exclusive)


class GpuLocks:
    """One `RWLock` per GPU, plus least-loaded assignment of candidates to GPUs."""

    def __init__(self, gpus: list[int]):
        self.gpus = gpus
        self._locks = {g: RWLock() for g in gpus}
        self._load = dict.fromkeys(gpus, 0)
        self._mu = threading.Lock()
        self._rr = itertools.count()

    def assign(self) -> int | None:
        if not self.gpus:
            return None
        with self._mu:
            low = min(self._load.values())
            choices = [g for g in self.gpus if self._load[g] == low]
            g = choices[next(self._rr) % len(choices)]
            self._load[g] += 1
            return g

    def done(self, gpu: int | None) -> None:
        if gpu is not None:
            with self._mu:
                self._load[gpu] -= 1

    def lock(self, gpu: int) -> RWLock:
        return self._locks[gpu]

    @contextmanager
    def shared(self, gpu: int | None):
        """Shared use of ``gpu`` (no-op for the CPU)."""
        if gpu is None:
            yield
            return
        with self._locks[gpu].hold(False):
            yield
