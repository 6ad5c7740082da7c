"""The environment of an evaluation, recorded in summary.json: GPU, library versions, git commit."""

from __future__ import annotations

import importlib.metadata
import platform
import subprocess
from pathlib import Path


def _version(pkg: str) -> str | None:
    try:
        return importlib.metadata.version(pkg)
    except importlib.metadata.PackageNotFoundError:
        return None


def git_commit(where: Path | None = None) -> str | None:
    """The commit of the LEAP checkout this code runs from (None outside a git checkout)."""
    root = where or Path(__file__).resolve().parents[3]
    try:
        out = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True,
                             timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def environment() -> dict:
    """GPU name and count (none without CUDA), torch/triton/transformers versions, CUDA, git commit."""
    import torch

    gpus = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())] \
        if torch.cuda.is_available() else []
    return {"gpu": gpus[0] if gpus else None, "gpu_count": len(gpus), "cuda": torch.version.cuda,
            "torch": torch.__version__, "triton": _version("triton"), "transformers": _version("transformers"),
            "python": platform.python_version(), "git_commit": git_commit()}
