"""Atomic training checkpoints and the stop-on-signal flag.

A checkpoint is a directory ``<dir>/step-<N>/`` holding

* ``trainable.pt``  – the trained tensors (LoRA adapters, or every weight under full fine-tuning);
* ``adapter/``      – LoRA only: the adapters in peft's format (loadable with ``PeftModel.from_pretrained``);
* ``optimizer.pt``, ``scheduler.pt``;
* ``rng.pt``        – python, numpy, torch CPU and CUDA RNG states;
* ``state.json``    – step, data position, DCP statistics and any other plain state of the loop;
* ``config.yaml``   – the run's config.

It is written to ``<dir>/.tmp-step-<N>`` and renamed into place, so a crash mid-write never leaves a
half checkpoint where a resume would find it; ``<dir>/latest`` names the newest complete one.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import threading
from pathlib import Path
from typing import Any

import numpy as np
import torch

LATEST = "latest"


def rng_state() -> dict[str, Any]:
    state = {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def set_rng_state(state: dict[str, Any]) -> None:
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    torch.set_rng_state(state["torch"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def seed_everything(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


class TrainingDiverged(ValueError):
    """The trained weights hold NaN/inf: saving them would hand every later stage a broken model."""


def finite_state(state: dict[str, torch.Tensor], where: str) -> dict[str, torch.Tensor]:
    """``state`` unchanged when every tensor is finite; else TrainingDiverged naming ``where``."""
    bad = [n for n, t in state.items() if t.is_floating_point() and not bool(torch.isfinite(t).all())]
    if bad:
        raise TrainingDiverged(f"{where}: {len(bad)} of {len(state)} trained tensors hold NaN/inf "
                               f"(first: {bad[0]}); training diverged, nothing saved")
    return state


def save_checkpoint(root: str | Path, step: int, *, policy, optimizer=None, scheduler=None,
                    state: dict | None = None, config_yaml: str = "", keep_last: int = 0) -> Path:
    """Write checkpoint ``step`` under ``root`` atomically; returns its final path."""
    root = Path(root)
    final = root / f"step-{step}"
    weights = finite_state(policy.trainable_state(), f"checkpoint {final}")
    root.mkdir(parents=True, exist_ok=True)
    tmp = root / f".tmp-step-{step}"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    torch.save(weights, tmp / "trainable.pt")
    if policy.lora:
        policy.model.save_pretrained(tmp / "adapter")
    if optimizer is not None:
        torch.save(optimizer.state_dict(), tmp / "optimizer.pt")
    if scheduler is not None:
        torch.save(scheduler.state_dict(), tmp / "scheduler.pt")
    torch.save(rng_state(), tmp / "rng.pt")
    from leap.trainer.metrics import json_safe  # NaN (e.g. turns_per_success with no success) -> null

    (tmp / "state.json").write_text(json.dumps(json_safe({"step": step, **(state or {})}), indent=1,
                                               default=float, allow_nan=False))
    if config_yaml:
        (tmp / "config.yaml").write_text(config_yaml)
    _fsync_dir(tmp)
    if final.exists():
        shutil.rmtree(final)
    os.replace(tmp, final)
    pointer = root / f".{LATEST}.tmp"
    pointer.write_text(final.name + "\n")
    os.replace(pointer, root / LATEST)
    if keep_last > 0:
        _prune(root, keep_last)
    return final


def _fsync_dir(path: Path) -> None:
    for f in path.iterdir():
        if f.is_file():
            with open(f, "rb") as fh:
                os.fsync(fh.fileno())


def _prune(root: Path, keep_last: int) -> None:
    steps = sorted((p for p in root.glob("step-*") if p.is_dir()), key=lambda p: int(p.name.split("-")[1]))
    for old in steps[:-keep_last]:
        shutil.rmtree(old, ignore_errors=True)


def resolve_checkpoint(path: str | Path) -> Path:
    """Accept a checkpoint dir or a checkpoint root (then its ``latest``); raises ValueError (one line)."""
    p = Path(path)
    if (p / "state.json").is_file():
        return p
    if (p / LATEST).is_file():
        target = p / (p / LATEST).read_text().strip()
        if (target / "state.json").is_file():
            return target
    steps = sorted((d for d in p.glob("step-*") if (d / "state.json").is_file()),
                   key=lambda d: int(d.name.split("-")[1])) if p.is_dir() else []
    if steps:
        return steps[-1]
    raise ValueError(f"{p}: not a LEAP checkpoint (no state.json, no 'latest', no step-* directories)")


def slim_checkpoint(src: str | Path, dst: str | Path, dtype: torch.dtype = torch.bfloat16) -> Path:
    """Copy what ``model.init_from`` and ``leap eval --checkpoint`` read — the trained weights cast to ``dtype``,
    ``state.json``, ``config.yaml`` — to ``dst``: small enough to travel between machines. No optimizer,
    scheduler or RNG state, so a run started from it is a fresh run from those weights."""
    ckpt, dst = resolve_checkpoint(src), Path(dst)
    dst.mkdir(parents=True, exist_ok=True)
    saved = torch.load(ckpt / "trainable.pt", map_location="cpu", weights_only=True)
    torch.save({k: v.to(dtype) if v.is_floating_point() else v for k, v in saved.items()}, dst / "trainable.pt")
    for name in ("state.json", "config.yaml"):
        if (ckpt / name).is_file():
            shutil.copyfile(ckpt / name, dst / name)
    return dst


def resume_or_fresh(path: str | Path | None, log=print) -> str | None:
    """``path`` if it holds a checkpoint; ``None`` (start fresh, said in one line) when none exists yet."""
    if not path:
        return None
    try:
        resolve_checkpoint(path)
    except ValueError:
        log(f"--resume {path}: no checkpoint there yet; starting fresh")
        return None
    return str(path)


def load_checkpoint(path: str | Path, *, policy, optimizer=None, scheduler=None,
                    restore_rng: bool = True) -> dict:
    """Restore weights, optimizer, scheduler and RNG from a checkpoint; returns its ``state.json``."""
    ckpt = resolve_checkpoint(path)
    saved = finite_state(torch.load(ckpt / "trainable.pt", map_location="cpu", weights_only=True), str(ckpt))
    params = dict(policy.model.named_parameters())
    missing = [n for n in saved if n not in params]
    if missing:
        raise ValueError(f"{ckpt}: checkpoint does not match this model (e.g. {missing[0]!r}); "
                         "check model.* and model.lora.* against the checkpoint's config.yaml")
    with torch.no_grad():
        for name, tensor in saved.items():
            params[name].copy_(tensor.to(params[name].dtype))
    if optimizer is not None and (ckpt / "optimizer.pt").is_file():
        optimizer.load_state_dict(torch.load(ckpt / "optimizer.pt", map_location="cpu", weights_only=False))
    if scheduler is not None and (ckpt / "scheduler.pt").is_file():
        scheduler.load_state_dict(torch.load(ckpt / "scheduler.pt", map_location="cpu", weights_only=False))
    if restore_rng and (ckpt / "rng.pt").is_file():
        set_rng_state(torch.load(ckpt / "rng.pt", map_location="cpu", weights_only=False))
    return json.loads((ckpt / "state.json").read_text())


class StopFlag:
    """Set by SIGTERM/SIGINT: the loop finishes its step, checkpoints and exits. A second signal aborts."""

    def __init__(self) -> None:
        self.requested = False
        self.signal_name = ""
        self._old: dict[int, Any] = {}

    def _handle(self, signum, frame) -> None:
        if self.requested:
            raise KeyboardInterrupt
        self.requested = True
        self.signal_name = signal.Signals(signum).name

    def install(self) -> StopFlag:
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGTERM, signal.SIGINT):
                self._old[sig] = signal.signal(sig, self._handle)
        return self

    def restore(self) -> None:
        for sig, old in self._old.items():
            signal.signal(sig, old)
        self._old.clear()

    def __enter__(self) -> StopFlag:
        return self.install()

    def __exit__(self, *exc) -> None:
        self.restore()
