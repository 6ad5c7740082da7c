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


def sandbox_config(overrides: list[str], option: str = "--sandbox-set", **fixed):
    """A `SandboxConfig` from ``fixed`` fields plus ``KEY=VALUE`` overrides (YAML values); an unknown key or
    a bad value fails with one line naming the option, the key and what was expected."""
    from pydantic import ValidationError

    from leap.sandbox import SandboxConfig
    from leap.trainer.config import one_line_error, parse_value

    data = dict(fixed)
    for item in overrides:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            fail(f"{option} {item!r}: expected KEY=VALUE (a SandboxConfig field)")
        if key not in SandboxConfig.model_fields:
            fail(f"{option} {key}: not a sandbox setting (known: {', '.join(sorted(SandboxConfig.model_fields))})")
        data[key] = parse_value(value)
    try:
        return SandboxConfig(**data)
    except ValidationError as exc:
        fail(str(one_line_error(option, exc)))
