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
              dtype: str = typer.Option("auto", help="auto (bf16 on a GPU, else fp32), float32, bfloat16, float16"),
              max_batch: int = typer.Option(64, help="most requests generated together"),
              max_queue: int = typer.Option(256, help="generations queued or running before 429"),
              max_body: int = typer.Option(1 << 20, help="largest request body in bytes (413 above)"),
              timeout: float = typer.Option(300.0, help="seconds a request may wait + generate (504 after)"),
              body_timeout: float = typer.Option(15.0, help="seconds for the request body to arrive (408 after)"),
              cache: str = typer.Option("static", help="static (fast path) or dynamic KV cache"),
              enable_lora: bool = typer.Option(False, "--enable-lora", help="accept LoRA adapters at run time "
                                               "(/v1/load_lora_adapter, /v1/unload_lora_adapter, as vLLM)"),
              max_loras: int = typer.Option(4, help="adapters loaded at once (with --enable-lora)")) -> None:
        """Serve MODEL at http://HOST:PORT/v1 (/v1/models, /v1/chat/completions; /health; with --enable-lora
        /v1/load_lora_adapter and /v1/unload_lora_adapter)."""
        from pathlib import Path

        from leap.rollout.policies.base import PolicyError
        from leap.rollout.policies.hf import HFPolicy
        from leap.rollout.server import ServeLimits, make_server

        label = name or Path(model).name
        try:
            if dtype not in ("auto", "float32", "bfloat16", "float16"):
                fail(f"--dtype: expected auto, float32, bfloat16 or float16, got {dtype!r}")
            policy = HFPolicy(model, device=device, dtype=dtype, batch_size=max_batch, cache=cache)
            limits = ServeLimits(max_batch=max_batch, max_queue=max_queue, max_body_bytes=max_body,
                                 request_timeout_s=timeout, body_timeout_s=body_timeout)
            server = make_server(policy, host, port, model_name=label, limits=limits,
                                 max_lora=max(1, max_loras) if enable_lora else 0)
        except (PolicyError, OSError) as exc:
            fail(str(exc))
        typer.echo(f"serving {label} at http://{host}:{server.server_port}/v1", err=True)
        server.serve_forever()
