"""``leap demo``: the whole LEAP loop end to end on a tiny policy trained from scratch (CPU or GPU)."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from leap.cli.common import fail


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)


def demo(device: str = typer.Option("cpu", help="cpu (Triton interpreter) or cuda (GPU, with timing)"),
         out: Path = typer.Option(Path("runs/demo"), help="output folder (report.md, plots, checkpoints)"),
         quick: bool = typer.Option(False, "--quick", help="a shortened run (about 2-3 minutes on 2 cores)"),
         seed: int = typer.Option(0, help="random seed (tasks, model, sampling)"),
         variant: str = typer.Option("leap", help="leap | single_turn | multiturn_no_pruning | grpo_scalar_reward"),
         sft_steps: int | None = typer.Option(None, help="override the SFT step budget"),
         rl_steps: int | None = typer.Option(None, help="override the RL step budget"),
         threads: int = typer.Option(1, help="torch CPU threads for the policy")) -> None:
    """Generate tasks and verified SFT pairs, train a tiny policy (SFT), evaluate, run LEAP RL,
    evaluate again on held-out tasks, and write report.md with plots."""
    if device not in ("cpu", "cuda"):
        fail(f"--device: expected cpu or cuda, got {device!r}")
    if device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
    import torch

    from leap.demo.pipeline import VARIANTS, DemoConfig, quick_config, run_demo
    from leap.demo.report import write_report
    from leap.sandbox import Sandbox

    if variant not in VARIANTS:
        fail(f"--variant: expected one of {', '.join(VARIANTS)}, got {variant!r}")
    if device == "cuda" and not torch.cuda.is_available():
        fail("--device cuda: no CUDA GPU is visible (use --device cpu)")
    torch.set_num_threads(max(1, threads))
    cfg = quick_config(seed) if quick else DemoConfig(seed=seed)
    cfg.device, cfg.variant = device, variant
    if sft_steps is not None:
        cfg.sft_steps = sft_steps
    if rl_steps is not None:
        cfg.rl_steps = rl_steps
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(f"--out {out}: cannot create folder ({exc.strerror})")
    typer.echo(f"leap demo: starting the sandbox ({device}) and generating tasks into {out}", err=True)
    with Sandbox(device=device) as sandbox:
        summary = run_demo(cfg, out, sandbox, log=lambda m: typer.echo(m, err=True))
    path = write_report(summary, out)
    sft, rl = summary["eval_sft"]["acc_at_turn"], summary["eval_rl"]["acc_at_turn"]
    typer.echo(f"held-out Acc@turn1 {sft[0]:.3f} (SFT) -> {rl[0]:.3f} (LEAP RL); report: {path}")
