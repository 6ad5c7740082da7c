"""Shared CLI helpers: one clear error line and exit code 2 for bad input."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line on stderr and exit (2 = bad arguments or unreadable input)."""
    typer.echo(f"error: {message}", err=True)
    sys.exit(code)
