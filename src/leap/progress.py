"""Progress for long commands (`leap train`, `leap sft`, `leap eval`, `leap verify-batch`).

On a terminal: a rich bar with the current stage and a few headline numbers. Elsewhere (a log file, a
pipe, CI): plain lines on stderr — one per advance, at most every ``every_s`` seconds, and a heartbeat
naming the running stage whenever nothing was printed for ``every_s`` seconds, so a long step is never
silent.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import TextIO


class Progress:
    """``advance(n, info)`` counts work done; ``stage(text)`` names what runs now. Silent when disabled."""

    def __init__(self, total: int, *, label: str = "", start: int = 0, enabled: bool = True,
                 every_s: float = 10.0, stream: TextIO | None = None, terminal: bool | None = None):
        self.total, self.done, self.label, self.every_s = total, start, label, every_s
        self._stream = stream if stream is not None else sys.stderr
        self._stage, self._info = "", ""
        self._t0 = self._last = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._bar = self._thread = None
        if not enabled:
            return
        tty = self._stream.isatty() if terminal is None else terminal
        if tty:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as RichProgress

            self._bar = RichProgress(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(),
                                     TimeElapsedColumn(), TextColumn("{task.fields[info]}"),
                                     console=Console(file=self._stream))
            self._task = self._bar.add_task(label, total=total, completed=start, info="")
            self._bar.start()
        else:
            self._thread = threading.Thread(target=self._beat, name="leap-progress", daemon=True)
            self._thread.start()

    def stage(self, text: str) -> None:
        """Name the work that runs now (shown on the bar, or in the next heartbeat line)."""
        with self._lock:
            self._stage = text
        if self._bar is not None:
            self._refresh()

    def set_total(self, total: int) -> None:
        """The amount of work, once it is known."""
        with self._lock:
            self.total = total
        if self._bar is not None:
            self._bar.update(self._task, total=total)

    def advance(self, n: int = 1, info: str = "") -> None:
        with self._lock:
            self.done += n
            self._info = info or self._info
            due = time.monotonic() - self._last >= self.every_s or self.done >= self.total
        if self._bar is not None:
            self._bar.update(self._task, advance=n)
            self._refresh()
        elif self._thread is not None and due:
            self._line(self._info)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _refresh(self) -> None:
        with self._lock:
            text = "  ".join(x for x in (self._stage, self._info) if x)
        self._bar.update(self._task, info=text)

    def _line(self, what: str) -> None:
        with self._lock:
            now = time.monotonic()
            parts = [f"{self.label} {self.done}/{self.total}".strip(), what, f"({now - self._t0:.0f} s)"]
            self._last = now
        self._stream.write("  ".join(p for p in parts if p) + "\n")
        self._stream.flush()

    def _beat(self) -> None:
        while not self._stop.wait(min(1.0, self.every_s)):
            if time.monotonic() - self._last >= self.every_s:
                self._line(f"running: {self._stage}" if self._stage else "running")
