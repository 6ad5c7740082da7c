"""Durable file writes: append with fsync, or write a temp file and ``os.replace`` it into place.

Every results/metrics file goes through here, so a kill at any moment leaves either the old file or the
new one, never a truncated one. ``LEAP_FAULT=rewrite`` makes the writer SIGKILL itself inside the rewrite
window (after the temp file is opened, before the rename): the point where a truncate-and-rewrite would
have left an empty file. Tests use it to prove no finished row is lost.
"""

from __future__ import annotations

import json
import os
import signal
import tempfile
from collections.abc import Iterable
from pathlib import Path

FAULT_ENV = "LEAP_FAULT"


def _fault(point: str) -> None:
    if os.environ.get(FAULT_ENV) == point:
        os.kill(os.getpid(), signal.SIGKILL)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Replace ``path`` with ``text`` atomically (temp file in the same folder, fsync, rename)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            _fault("rewrite")
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def jsonl_text(rows: Iterable[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in rows)


def atomic_write_jsonl(path: str | Path, rows: Iterable[dict]) -> None:
    """Replace ``path`` with one JSON line per row, atomically."""
    atomic_write_text(path, jsonl_text(rows))


def append_jsonl(path: str | Path, rows: Iterable[dict]) -> None:
    """Append rows to ``path`` and fsync, so a finished row survives a kill."""
    text = jsonl_text(rows)
    if not text:
        return
    with open(path, "a") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


class JsonlAppender:
    """An open JSONL file that fsyncs every row it appends."""

    def __init__(self, path: str | Path):
        self._f = open(path, "a")

    def write(self, row: dict) -> None:
        self._f.write(json.dumps(row) + "\n")
        self._f.flush()
        os.fsync(self._f.fileno())

    def close(self) -> None:
        self._f.close()
