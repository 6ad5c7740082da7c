"""The ``leap`` command. Each area registers its sub-commands in its own module under ``leap.cli``."""

from __future__ import annotations

import typer

from leap.cli import (
    compare_cmd,
    demo_cmd,
    eval_cmd,
    models_cmd,
    sandbox_cmd,
    serve_cmd,
    sft_cmd,
    sftdata_cmd,
    tasks_cmd,
    train_cmd,
    verify_cmd,
)

app = typer.Typer(no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="LEAP: RL post-training of code LLMs for fast, correct GPU kernels.")
app.add_typer(tasks_cmd.app, name="tasks")
app.add_typer(sandbox_cmd.app, name="sandbox")
verify_cmd.register(app)
train_cmd.register(app)
sft_cmd.register(app)
demo_cmd.register(app)
serve_cmd.register(app)
eval_cmd.register(app)
compare_cmd.register(app)
app.add_typer(models_cmd.app, name="models")
app.add_typer(sftdata_cmd.app, name="sft-data")


def _version(value: bool) -> None:
    if value:
        from leap import __version__

        typer.echo(f"leap {__version__}")
        raise typer.Exit()


@app.callback()
def _root(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="print the version and exit")) -> None:
    """LEAP: RL post-training of code LLMs for fast, correct GPU kernels."""


if __name__ == "__main__":  # `python -m leap.cli.main ...` (e.g. under `accelerate launch`)
    app()
