"""``leap sft``: cold-start supervised fine-tuning on JSONL {prompt, answer} pairs."""

from __future__ import annotations

import json

import typer

from leap.cli.common import fail, quiet_known_warnings


def register(app: typer.Typer) -> None:
    @app.command("sft")
    def sft(
        overrides: list[str] = typer.Argument(None, help="config overrides key.sub=value"),
        config: str = typer.Option(None, "--config", "-c", help="YAML config (same schema as leap train)"),
        data: str = typer.Option(None, "--data", help="JSONL of {prompt, answer} (default: sft.data)"),
        resume: str = typer.Option(None, "--resume", help="checkpoint dir (or checkpoint root) to resume"),
    ) -> None:
        """Supervised fine-tuning with a completion-only loss, on the same model/config machinery."""
        from leap.trainer.checkpoint import StopFlag
        from leap.trainer.config import ConfigError, load_config
        from leap.trainer.sft import run_sft

        quiet_known_warnings()
        try:
            cfg = load_config(config, overrides or [])
            with StopFlag() as stop:
                summary = run_sft(cfg, data=data, resume=resume, stop=stop)
        except (ConfigError, ValueError) as exc:
            fail(str(exc))
        from leap.trainer.metrics import json_safe

        typer.echo(json.dumps(json_safe(summary), default=float))
