"""``leap train``: multi-turn GRPO with DCP and the tournament reward (or a baseline, by config)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import typer

from leap.cli.common import fail, quiet_known_warnings


def register(app: typer.Typer) -> None:
    @app.command("train")
    def train(
        overrides: list[str] = typer.Argument(None, help="config overrides key.sub=value"),
        config: str = typer.Option(None, "--config", "-c", help="YAML config (see configs/)"),
        resume: str = typer.Option(None, "--resume", help="checkpoint dir (or checkpoint root) to resume"),
        variant: str = typer.Option(None, "--variant", help="ablation overlay on the config: leap, single_turn, "
                                    "multiturn_no_pruning, grpo_scalar_reward"),
        print_config: bool = typer.Option(False, "--print-config",
                                          help="list every key with its default and description and exit"),
    ) -> None:
        """Train the policy; SIGTERM/SIGINT finish the step, checkpoint and exit (a second one aborts)."""
        from leap.trainer.checkpoint import StopFlag
        from leap.trainer.config import ConfigError, describe_config, load_config
        from leap.trainer.loop import train as run_train

        if print_config:
            rows = describe_config()
            width = max(len(k) for k, _, _ in rows)
            for key, default, doc in rows:
                typer.echo(f"{key:<{width}}  {default:<24}  {doc}".rstrip())
            return
        if config is None and not any(o.split("=", 1)[0].strip().startswith("model.") for o in overrides or []):
            fail("leap train needs --config FILE (e.g. configs/leap_tiny_cpu.yaml); "
                 "`leap train --print-config` lists every key")
        quiet_known_warnings()
        try:
            cfg = load_config(config, overrides or [], variant=variant)
            parts, tiny = {}, None
            if cfg.model.demo is not None:
                from leap.demo.trainer_parts import demo_parts

                parts, tiny = demo_parts(cfg, log=lambda m: typer.echo(m, err=True))
            with StopFlag() as stop:
                summary = run_train(cfg, resume=resume, stop=stop, **parts)
            if tiny is not None and os.environ.get("RANK", "0") == "0":  # a folder `leap eval` can load
                tiny.save(Path(cfg.output_dir) / "policy")
                summary["policy"] = str(Path(cfg.output_dir) / "policy")
        except (ConfigError, ValueError) as exc:
            fail(str(exc))
        from leap.trainer.metrics import json_safe

        typer.echo(json.dumps(json_safe(summary)))
