"""The `Verdict` record: what the sandbox says about one candidate."""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

Status = Literal["ok", "format_error", "rejected", "compile_error", "runtime_error", "timeout", "incorrect",
                 "needs_gpu", "sandbox_error"]
Backend = Literal["triton", "cuda_inline", "cuda_nvrtc"]
STATUSES: tuple[str, ...] = ("ok", "format_error", "rejected", "compile_error", "runtime_error",
                             "timeout", "incorrect", "needs_gpu", "sandbox_error")
# Outcomes that say nothing about the candidate: the judge could not run it here (no GPU) or the judge
# itself failed. Trainers drop such samples from their group and evaluations leave them out of accuracy.
NOT_THE_CANDIDATE: frozenset[str] = frozenset({"needs_gpu", "sandbox_error"})


class RuntimeStats(BaseModel):
    """The candidate's timed samples (microseconds): ``Verdict.runtime_us`` and the speedups use the median."""

    model_config = ConfigDict(frozen=True)
    median_us: float
    mean_us: float
    std_us: float
    min_us: float
    max_us: float
    samples: int


class Verdict(BaseModel):
    """The outcome of verifying one candidate against one task.

    ``correct`` is true only for status ``ok``. Speedups and runtimes are ``None`` where no timing ran
    (no GPU, or the candidate failed before timing). ``feedback`` is the text shown to the policy on
    its next turn; ``detail`` may hold judge-internal specifics that are never shown to the policy.
    """

    # an error of inf/NaN (a candidate's NaN output) must survive JSON: "Infinity"/"NaN", read back as floats
    model_config = ConfigDict(ser_json_inf_nan="strings")

    status: Status
    correct: bool = False
    compiled: bool = False
    backend: Backend | None = None
    device: str = "cpu"
    speedup_eager: float | None = None
    speedup_compile: float | None = None
    runtime_us: float | None = None
    ref_runtime_us: float | None = None
    ref_compile_runtime_us: float | None = None
    runtime_stats: RuntimeStats | None = None
    custom_kernel_fraction: float | None = None
    trials: int = 0
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    feedback: str = ""
    detail: str = ""
    stage_seconds: dict[str, float] = Field(default_factory=dict)
    task: str = ""
    # under SandboxConfig.rules "kernelbench": LEAP's strict static-gate verdict beside KernelBench's
    # ("ok" or "rejected: <rule> (line N)"); None under LEAP's own rules
    strict_gate: str | None = None

    @field_validator("feedback", "detail", "task", "strict_gate")
    @classmethod
    def _writable(cls, text: str | None) -> str | None:
        """Text any UTF-8 writer takes: a lone surrogate (from a candidate's source or error text) would fail
        every JSON line, log and prompt it reaches, and with it a whole batch's results."""
        return text.encode("utf-8", "replace").decode("utf-8") if isinstance(text, str) else text

    @property
    def timed(self) -> bool:
        return self.speedup_eager is not None

    def public_dict(self) -> dict:
        """The JSON the CLI prints and the service answers (everything except judge-internal ``detail``);
        strict JSON: non-finite floats as the strings "Infinity", "-Infinity", "NaN"."""
        return json.loads(self.model_dump_json(exclude={"detail"}))
