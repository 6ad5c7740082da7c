"""``leap serve MODEL``: an OpenAI-compatible endpoint over the in-process Hugging Face policy."""

from __future__ import annotations

import typer

from leap.cli.common import fail


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve(model: str = typer.Argument(..., help="transformers model folder"),
              host: str = typer.Option("127.0.0.1", help="address to bind"),
              port: int = typer.Option(8000, help="port (0 = any free port)"),
              name: str = typer.Option("", help="model name to advertise (default: the folder name)"),
              device: str = typer.Option("auto", help="cpu, cuda, cuda:N or auto"),
              max_batch: int = typer.Option(64, help="most requests generated together"),
              cache: str = typer.Option("static", help="static (fast path) or dynamic KV cache")) -> None:
        """Serve MODEL at http://HOST:PORT/v1 (/v1/models, /v1/chat/completions)."""
        from pathlib import Path

        from leap.rollout.policies.base import PolicyError
        from leap.rollout.policies.hf import HFPolicy
        from leap.rollout.server import make_server

        try:
            policy = HFPolicy(model, device=device, batch_size=max_batch, cache=cache)
            server = make_server(policy, host, port, model_name=name or Path(model).name, max_batch=max_batch)
        except (PolicyError, OSError) as exc:
            fail(str(exc))
        typer.echo(f"serving {name or Path(model).name} at http://{host}:{server.server_port}/v1", err=True)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            server.server_close()
