"""A `leap` server as a real process on loopback, for the integration (and GPU) tests: a free port,
stderr into a file (a pipe nobody reads fills up and blocks the server), /health polled until it answers
200 (the server's log in the assertion if it dies first), stopped afterwards."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

SRC = str(Path(__file__).resolve().parents[2] / "src")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def leap_server(args: list[str], log_path: Path, *, env: dict | None = None,
                tries: int = 600) -> Iterator[tuple[str, subprocess.Popen]]:
    """``python -m leap.cli.main ARGS --port P``; yields (base URL, process) once it is healthy."""
    port = free_port()
    with open(log_path, "w+") as log:
        proc = subprocess.Popen([sys.executable, "-m", "leap.cli.main", *args, "--port", str(port)],
                                env=env or {**os.environ, "PYTHONPATH": os.pathsep.join(
                                    p for p in (SRC, os.environ.get("PYTHONPATH")) if p)},  # keep where deps are
                                stderr=log, text=True)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(tries):
                try:
                    if httpx.get(base + "/health", timeout=2).status_code == 200:
                        break
                except httpx.TransportError:
                    time.sleep(0.2)
                assert proc.poll() is None, Path(log_path).read_text()[-3000:]
            yield base, proc
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
