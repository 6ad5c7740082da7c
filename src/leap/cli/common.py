"""Shared CLI helpers: one clear error line and exit code 2 for bad input."""

from __future__ import annotations

import sys
from typing import NoReturn

import typer


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line on stderr and exit (2 = bad arguments or unreadable input)."""
    typer.echo(f"error: {message}", err=True)
    sys.exit(code)


def quiet_known_warnings() -> None:
    """Silence library deprecation notices that say nothing about the user's run (transformers v5 renames)."""
    import warnings

    warnings.filterwarnings("ignore", message=r".*is_gradient_checkpointing.*", category=FutureWarning)
