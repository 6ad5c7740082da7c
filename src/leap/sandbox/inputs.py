"""Trial plans for the correctness check (DESIGN.md §3 step 3), drawn judge-side.

Each evaluation gets a secret seed (`new_seed`, from the OS's entropy); the trial inputs are made
here and written to files for the child, which never learns the seed. Trials cycle through variants:

* ``task``  — the task's own ``get_inputs()`` / ``get_small_inputs()``, re-seeded per trial;
* ``randn`` — signed standard-normal values of the same shapes and dtypes;
* ``x100`` / ``x1e-3`` — signed normal values scaled by 100 / 1e-3.

A floating-point input with a declared domain (``task.input_domains``: ``"positive"``, ``"unit"`` or
``[lo, hi]``) is never rescaled: in ``randn`` it is drawn fresh inside its domain, in the scaled variants
it keeps the task's own values. Integer, bool and index inputs and non-tensor inputs are always the
task's own. `is_degenerate` flags a reference output that cannot tell right from wrong (mostly
NaN/Inf, or constant); the caller skips such a trial instead of counting it as a pass.
"""

from __future__ import annotations

import random
import secrets
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from leap.sandbox.task_module import get_inputs

VARIANTS: tuple[str, ...] = ("task", "randn", "x100", "x1e-3")
SCALES: dict[str, float] = {"x100": 100.0, "x1e-3": 1e-3}
MAX_NONFINITE = 0.5  # a reference with more than this share of NaN/Inf is degenerate


@dataclass
class Trial:
    """One correctness trial: the inputs (CPU tensors / objects, in argument order) and its variant."""

    name: str
    inputs: list[Any]
    variant: str = ""
    meta: dict = field(default_factory=dict)


def new_seed() -> int:
    """A fresh secret per-evaluation seed (never sent to the candidate)."""
    return secrets.randbits(62)


def _bounds(domain: Any) -> tuple[float, float] | None:
    """``(lo, hi)`` of a declared domain, or ``None`` for no domain (``"any"`` or absent)."""
    if domain is None or domain == "any":
        return None
    if domain == "positive":
        return (0.0, float("inf"))
    if domain == "unit":
        return (0.0, 1.0)
    lo, hi = domain
    return (float(lo), float(hi))


def _domains(task: Any) -> Mapping[int, Any]:
    raw = getattr(task, "input_domains", None) or {}
    return {int(k): v for k, v in raw.items()}


def _in_domain(x: torch.Tensor, lo: float, hi: float, gen: torch.Generator) -> torch.Tensor:
    """Fresh values of ``x``'s shape and dtype inside ``[lo, hi]`` (a half-open side: |randn| + 1e-3 away
    from the finite bound)."""
    half = torch.randn(x.shape, generator=gen, dtype=torch.float32).abs() + 1e-3
    if lo == float("-inf") and hi == float("inf"):
        vals = torch.randn(x.shape, generator=gen, dtype=torch.float32)
    elif hi == float("inf"):
        vals = lo + half
    elif lo == float("-inf"):
        vals = hi - half
    else:
        vals = lo + (hi - lo) * torch.rand(x.shape, generator=gen, dtype=torch.float32)
    return vals.to(dtype=x.dtype, device=x.device)


def vary(x: Any, variant: str, domain: Any, gen: torch.Generator) -> Any:
    """Input ``x`` of the task under ``variant`` (see the module docstring)."""
    if not isinstance(x, torch.Tensor) or not (x.is_floating_point() or x.is_complex()) or variant == "task":
        return x
    bounds = _bounds(domain)
    if bounds is not None:
        return _in_domain(x, *bounds, gen) if variant == "randn" else x
    real = torch.float32 if not x.is_complex() else torch.complex64
    z = torch.randn(x.shape, generator=gen, dtype=real) * SCALES.get(variant, 1.0)
    return z.to(dtype=x.dtype, device=x.device).requires_grad_(x.requires_grad)


def make_trials(task: Any, module: types.ModuleType, *, n_trials: int = 5, seed: int,
                small: bool) -> list[Trial]:
    """``n_trials`` trials (>= 1) from ``seed``; the variants cycle ``task, randn, x100, x1e-3, task, ...``.

    Deterministic given ``seed`` (so tests can replay it); torch's global RNG state is restored
    afterwards. Inputs stay where the task creates them (CPU)."""
    rng = random.Random(seed)
    domains = _domains(task)
    trials: list[Trial] = []
    for i in range(max(1, n_trials)):
        variant = VARIANTS[i % len(VARIANTS)]
        trial_seed = rng.getrandbits(62)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(trial_seed)
            base = get_inputs(module, small)
        gen = torch.Generator().manual_seed(trial_seed ^ 0x5EED)
        inputs = [vary(x, variant, domains.get(j), gen) for j, x in enumerate(base)]
        trials.append(Trial(name=variant, inputs=inputs, variant=variant, meta={"index": i}))
    return trials


def _flat(obj: Any) -> list[Any]:
    if isinstance(obj, list | tuple):
        return [y for x in obj for y in _flat(x)]
    if isinstance(obj, dict):
        return [y for x in obj.values() for y in _flat(x)]
    return [obj]


def is_degenerate(ref_output: Any) -> bool:
    """True when a reference output cannot tell a right kernel from a wrong one: its tensors are mostly
    NaN/Inf (more than half), or each tensor with several finite values holds one constant."""
    tensors = [t.detach() for t in _flat(ref_output) if isinstance(t, torch.Tensor) and t.numel() > 0]
    if not tensors:
        return False
    n_total = sum(t.numel() for t in tensors)
    n_bad, n_varied, n_multi = 0, 0, 0
    for t in tensors:
        if t.is_complex():
            t = torch.view_as_real(t)
        if t.is_floating_point():
            finite = torch.isfinite(t)
            n_bad += int((~finite).sum())
            vals = t[finite]
        else:
            vals = t.flatten()
        if vals.numel() > 1:
            n_multi += 1
            n_varied += int(not bool((vals == vals[0]).all()))
    if n_bad > MAX_NONFINITE * n_total:
        return True
    return n_multi > 0 and n_varied == 0
