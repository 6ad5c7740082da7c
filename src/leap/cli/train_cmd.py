"""``leap train``: multi-turn GRPO with DCP and the tournament reward (or a baseline, by config)."""

from __future__ import annotations

import json

import typer

from leap.cli.common import fail


def register(app: typer.Typer) -> None:
    @app.command("train")
    def train(
        overrides: list[str] = typer.Argument(None, help="config overrides key.sub=value"),
        config: str = typer.Option(None, "--config", "-c", help="YAML config (see configs/)"),
        resume: str = typer.Option(None, "--resume", help="checkpoint dir (or checkpoint root) to resume"),
    ) -> None:
        """Train the policy; SIGTERM/SIGINT finish the step, checkpoint and exit (a second one aborts)."""
        from leap.trainer.checkpoint import StopFlag
        from leap.trainer.config import ConfigError, load_config
        from leap.trainer.loop import train as run_train

        try:
            cfg = load_config(config, overrides or [])
            with StopFlag() as stop:
                summary = run_train(cfg, resume=resume, stop=stop)
        except (ConfigError, ValueError) as exc:
            fail(str(exc))
        typer.echo(json.dumps(summary, default=float).replace("NaN", "null"))
