"""The public API: `Sandbox` (a warm worker pool as a context manager), `verify`, `verify_many`."""

from __future__ import annotations

import atexit
import threading
from collections.abc import Iterable, Iterator

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task


class Sandbox:
    """Holds a warm pool of candidate workers. Use as ``with Sandbox(config) as sb: sb.verify(...)``."""

    def __init__(self, config: SandboxConfig | None = None, device: str = "auto"):
        from leap.sandbox.judge.scheduler import Scheduler
        from leap.sandbox.judge.verifier import resolve_device

        self.config = config or SandboxConfig()
        self.device = resolve_device(device)
        self._sched = Scheduler(self.config, device=self.device)
        self._closed = False

    def verify(self, task: Task, source: str, *, backend: str = "auto", device: str = "auto") -> Verdict:
        """Verify one candidate ``source`` against ``task``; always returns a `Verdict`."""
        return self._sched.verify(self._sized(task, device), source, backend=backend, device=device)

    def verify_many(self, pairs: Iterable[tuple[Task, str]], *, backend: str = "auto",
                    device: str = "auto") -> Iterator[tuple[int, Verdict]]:
        """Verify many (task, source) pairs concurrently; yields ``(index, verdict)`` as they complete."""
        return self._sched.verify_many(((self._sized(t, device), s) for t, s in pairs), backend=backend,
                                       device=device)

    def _sized(self, task: Task, device: str) -> Task:
        """On the CPU, a task without ``get_small_inputs()`` runs on derived CPU sizes (`leap.tasks.cpu_size`)."""
        from leap.tasks.cpu_size import cpu_task

        return cpu_task(task) if (self.device if device == "auto" else device) == "cpu" else task

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._sched.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_DEFAULT: dict[tuple, Sandbox] = {}
_DEFAULT_LOCK = threading.Lock()


def _shared(config: SandboxConfig | None, device: str) -> Sandbox:
    """A process-wide warm sandbox per (config, device), so repeated `verify` calls stay fast."""
    cfg = config or SandboxConfig()
    key = (cfg.model_dump_json(), device)
    with _DEFAULT_LOCK:
        sb = _DEFAULT.get(key)
        if sb is None:
            sb = _DEFAULT[key] = Sandbox(cfg, device=device)
    return sb


@atexit.register
def _close_shared() -> None:
    for sb in list(_DEFAULT.values()):
        sb.close()
    _DEFAULT.clear()


def verify(task: Task, source: str, *, backend: str = "auto", device: str = "auto",
           config: SandboxConfig | None = None) -> Verdict:
    """Verify one candidate with a process-wide warm sandbox."""
    return _shared(config, device).verify(task, source, backend=backend, device=device)


def verify_many(pairs: Iterable[tuple[Task, str]], *, backend: str = "auto", device: str = "auto",
                config: SandboxConfig | None = None) -> Iterator[tuple[int, Verdict]]:
    """Verify many pairs; yields ``(index_in_pairs, verdict)`` as they complete."""
    return _shared(config, device).verify_many(pairs, backend=backend, device=device)
