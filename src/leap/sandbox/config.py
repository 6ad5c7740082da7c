"""`SandboxConfig`: every number of the verification protocol (DESIGN.md §3), with its defaults."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field


def default_cache_dir() -> Path:
    """``$LEAP_CACHE_DIR`` if set, else ``~/.cache/leap``."""
    env = os.environ.get("LEAP_CACHE_DIR")
    return Path(env) if env else Path.home() / ".cache" / "leap"


def default_scratch_dir() -> Path:
    """Where per-candidate private dirs live: tmpfs (``/dev/shm``) when present, tensors move fast there."""
    shm = Path("/dev/shm")
    try:
        st = os.statvfs(shm)
        roomy = st.f_bavail * st.f_frsize >= (8 << 30)  # docker's default 64 MiB shm is too small
    except OSError:
        roomy = False
    return shm if roomy and os.access(shm, os.W_OK) else Path(os.environ.get("TMPDIR", "/tmp"))


class Tolerance(BaseModel):
    """Default rtol = atol per output dtype (scaled by output RMS by the comparator)."""

    fp32: float = 1e-4
    fp16: float = 1e-2
    bf16: float = 1.6e-2


class SandboxConfig(BaseModel):
    """All knobs of the sandbox. Defaults are the protocol's (DESIGN.md §3)."""

    # stages
    compile_timeout_s: float = Field(180.0, gt=0, description="cuda_inline build / first launch")
    run_timeout_s: float = Field(120.0, gt=0, description="wall clock for one candidate's child process")
    cpu_run_timeout_s: float = Field(300.0, gt=0, description="wall clock on the CPU (Triton interpreter)")
    # correctness
    trials: int = Field(5, ge=5, description="correctness trials on fresh inputs")
    poison_rechecks: int = Field(1, ge=0, description="trials re-run under a second poison (bit-identical)")
    poison_bytes: int = Field(2 << 30, ge=0, description="GPU block filled with poison before each run "
                              "(capped at half the free GPU memory)")
    child_checks: bool = Field(True, description="input-unchanged and poison bit-identity checked in the child "
                               "(with functions bound before candidate code; no tensor round-trip) instead of by the judge")
    fingerprint_trials: int = Field(1, ge=0, description="GPU: trials whose output is fingerprinted before and "
                                    "after a device sync (side-stream detector; hashes the output on the host)")
    tolerances: Tolerance = Field(default_factory=Tolerance)
    # timing (GPU only)
    kernel_fraction: float = Field(0.5, ge=0, le=1, description="min share of GPU time in custom kernels")
    max_host_copy_bytes: int | None = Field(4096, ge=0, description="most bytes a forward may copy from the "
                                            "device to the host per call (a few scalars; None: no limit)")
    timing_samples: int = Field(30, ge=1)
    warmup: int = Field(5, ge=0)
    flush_l2: bool = True
    compile_pass: bool = Field(True, description="GPU: compile a Triton candidate's kernels (one forward, no "
                               "launch) before its trials take the GPU, so compiling never holds up timing")
    host_clock_tolerance: float = Field(0.10, gt=0, description="tail allowed after the measured stream, as a fraction of its "
                                        "event time (work outlasting it is hidden work)")
    host_clock_slack_us: float = Field(100.0, ge=0, description="tail allowed on top (microseconds): the driver's "
                                       "synchronize latency")
    # execution
    workers: int = Field(0, ge=0, description="concurrent candidate children (0 = auto)")
    prewarm: int = Field(-1, ge=-1, description="idle pre-forked children kept ready (-1 = workers)")
    compile_workers: int = Field(0, ge=0, description="CPU compile pool size (0 = auto)")
    cache_dir: Path = Field(default_factory=default_cache_dir)
    scratch_dir: Path = Field(default_factory=default_scratch_dir)
    isolation: bool = True
    drop_uid: int | None = Field(65534, description="run candidates as this unprivileged uid when the judge is "
                                 "root (a non-root judge's candidates keep its user); None keeps the judge's user")
    transport: Literal["auto", "ipc", "files"] = Field(
        "auto", description="how GPU trial tensors travel judge <-> child: CUDA IPC (zero-copy; auto = when a "
        "probe through the isolated pool succeeds) or files in the child's private dir")
    preload_extra: list[str] = Field(default_factory=list, description="more modules the forkserver imports, "
                                     "e.g. ['cupy'] (saves its import per nvrtc candidate; must not initialise CUDA)")
    static_gate: bool = True
    rules: Literal["leap", "kernelbench"] = Field(
        "leap", description="static-gate rules: leap (no PyTorch compute in forward beyond the task's allowed ops) or "
        "kernelbench (KernelBench's rules: partial PyTorch in ModelNew allowed when a custom kernel is launched; "
        "LEAP's strict verdict is reported in Verdict.strict_gate)")
    memory_limit_gb: float = Field(32.0, gt=0, description="host memory limit of a CPU child (RLIMIT_AS, cgroup); "
                                   "at most 80% of the machine's memory over the workers, at least 4 GiB")
    gpu_host_memory_limit_gb: float | None = Field(
        None, description="host memory rlimit (RLIMIT_DATA) of a GPU child; None = off until confirmed with CUDA")
    judge_memory_share: float = Field(0.6, gt=0, le=1, description="share of the GPU's memory (CPU: of the host's "
                                      "available memory) that concurrent checks' trial tensors may plan to hold; "
                                      "checks wait for room, and a task too big for it runs its trials in rounds")
    judge_memory_gib: float | None = Field(None, gt=0, description="that budget in GiB instead of a share")
    keep_scratch: bool = Field(False, description="keep private dirs after a verdict (debugging)")
    gpus: list[int] | None = Field(None, description="GPU indices to use (None = all visible)")

    def n_workers(self, device: str) -> int:
        """Concurrent children: configured, else per GPU half the host's cores per GPU (2..8; trial runs
        share a GPU, timing holds it alone; on an H200, 8 beat 16 by 20% and 16 ran it short of memory)
        or, on the CPU, half the cores (1..4)."""
        if self.workers:
            return self.workers
        if device == "cuda":
            n = max(1, len(self.gpu_ids()))
            return n * min(8, max(2, (os.cpu_count() or 2) // (2 * n)))
        return max(1, min(4, (os.cpu_count() or 2) // 2))

    def n_compile_workers(self) -> int:
        return self.compile_workers or max(1, min(8, (os.cpu_count() or 2) // 2))

    def gpu_ids(self) -> list[int]:
        if self.gpus is not None:
            return list(self.gpus)
        try:
            import torch

            return list(range(torch.cuda.device_count()))
        except Exception:  # torch without CUDA
            return []
