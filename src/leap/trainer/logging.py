"""Metrics sinks: a JSONL file (always readable), TensorBoard and W&B when asked for, and a progress bar."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path
from typing import Any

from leap.durable import JsonlAppender, atomic_write_jsonl
from leap.trainer.config import LoggingConfig


def _clean(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else value
    if hasattr(value, "item"):
        return value.item()
    return value


class MetricsLogger:
    """Write one JSON line per step to ``<dir>/metrics.jsonl`` (+ TensorBoard / W&B scalars)."""

    def __init__(self, cfg: LoggingConfig, *, run_name: str = "leap", config: dict | None = None,
                 enabled: bool = True, append: bool = False, resume_step: int | None = None):
        self.cfg, self.enabled = cfg, enabled
        self.dir = Path(cfg.dir)
        self._jsonl = self._tb = self._wandb = None
        if not enabled:
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        if cfg.jsonl:
            path = self.dir / "metrics.jsonl"
            if resume_step is not None and path.is_file():  # drop rows logged after the checkpoint
                keep = [r for r in read_metrics(path) if r.get("step", 0) <= resume_step]
                atomic_write_jsonl(path, keep)  # temp + rename: a kill here keeps every old row
            elif not (append or resume_step is not None) and path.is_file():
                atomic_write_jsonl(path, [])  # a fresh run starts an empty file
            self._jsonl = JsonlAppender(path)
        if cfg.tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self._tb = SummaryWriter(str(self.dir / "tb"))
            except ImportError:
                print("warning: logging.tensorboard is on but tensorboard is not installed; skipping it")
        if cfg.wandb:
            try:
                import wandb

                self._wandb = wandb.init(project=cfg.wandb_project, name=run_name, config=config or {},
                                         dir=str(self.dir), resume="allow")
            except ImportError:
                print("warning: logging.wandb is on but wandb is not installed; skipping it")

    def log(self, step: int, metrics: dict[str, Any]) -> None:
        if not self.enabled:
            return
        row = {"step": step, "time": round(time.time(), 3), **{k: _clean(v) for k, v in metrics.items()}}
        if self._jsonl is not None:
            self._jsonl.write(row)
        scalars = {k: v for k, v in row.items() if isinstance(v, int | float) and k not in ("step", "time")}
        if self._tb is not None:
            for k, v in scalars.items():
                self._tb.add_scalar(k, v, step)
            self._tb.flush()
        if self._wandb is not None:
            self._wandb.log(scalars, step=step)

    def close(self) -> None:
        if self._jsonl is not None:
            self._jsonl.close()
            self._jsonl = None
        if self._tb is not None:
            self._tb.close()
            self._tb = None
        if self._wandb is not None:
            self._wandb.finish()
            self._wandb = None


def read_metrics(path: str | Path) -> list[dict]:
    """All rows of a ``metrics.jsonl`` file (a torn last line, from a kill mid-append, is skipped)."""
    rows = []
    for line in Path(path).read_text().splitlines():
        try:
            rows.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return rows


HEADLINE_KEYS = ("reward/mean", "acc/turn1", "loss", "time/step")


def headline(metrics: dict[str, Any]) -> str:
    """The few numbers a progress line shows for a step (``reward=0.2  turn1=0.69  loss=..``)."""
    return "  ".join(f"{k.split('/')[-1] if k != 'reward/mean' else 'reward'}={metrics[k]:.3g}"
                     for k in HEADLINE_KEYS if isinstance(metrics.get(k), int | float))
