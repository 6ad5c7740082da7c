"""Validation of a task: its reference runs on the CPU at small shapes, is deterministic, gives a
non-degenerate output that depends on the inputs, and its inputs respect their declared domains.

Degenerate (DESIGN.md §2, issue 4): more than 70% of output values near zero, more than 70% near the
mean, or more than 95% unchanged between two input seeds. "Near" means within ``NEAR * rms`` of the
output, which is the scale of the sandbox's own tolerance: values the comparator cannot tell apart.
GPU shapes are checked on the ``meta`` device (no memory, no compute): footprint within 16 GB and a
rough roofline estimate of the reference time, used to mark tasks that may run under 50 us.

KernelBench's conventions are accepted: a task without ``get_small_inputs()`` whose inputs are too big
for the CPU is checked on sizes derived by `leap.tasks.cpu_size` (a note says which); inputs drawn
non-negative (``torch.rand``) are a note (the sandbox's signed variants still cover negative values); a
forward that draws random numbers (dropout, a random ``h0``) is a warning, or a note when the task
declares ``LEAP_RANDOM_FORWARD = True``. Notes and warnings never make a task invalid. The quality
findings (degenerate output, ill-conditioning, GPU footprint) are problems for LEAP's own tasks (those
declaring any ``LEAP_*`` metadata) and warnings for foreign ones (a KernelBench file is what it is);
``strict=True`` makes them problems for every task.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import torch

from leap.tasks.cpu_size import cpu_sizing
from leap.tasks.module import (
    build_model,
    clone_args,
    double_args,
    flat_tensors,
    float_keeps_double,
    load_module,
    make_inputs,
    run_reference,
    seed_all,
    single_thread,
)
from leap.tasks.task import Task, TaskError

NEAR = {"fp32": 1e-4, "fp16": 1e-3, "bf16": 4e-3, "int": 0.0}
MAX_NEAR_ZERO = 0.70
MAX_NEAR_MEAN = 0.70
MAX_UNCHANGED = 0.95
NOISE = 1e-5
MIN_STAT_ELEMENTS = 16
# Conditioning: the reference in its own dtype must match float64 within this share of the sandbox's
# tolerance (rtol = atol = TOL x output RMS) on the sandbox's input variants, else no kernel can pass reliably.
TOL = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1.6e-2, "int": 0.0}
CONDITION_SHARE = {"fp32": 0.5, "fp16": 1.0, "bf16": 1.0}  # half dtypes: storage rounding alone is ~0.3
VARIANTS = (("inputs x1e-3", 1e-3), ("inputs x100", 100.0), ("task inputs", 1.0))
GPU_MEMORY_LIMIT = 16 * 2**30
CPU_ELEMENT_LIMIT = 4_000_000  # inputs this large or larger need get_small_inputs()
# Rough H200 roofline for estimates only: achievable bandwidth and dense peaks per dtype.
BANDWIDTH = 4.0e12
PEAK_FLOPS = {"fp32": 50e12, "bf16": 700e12, "fp16": 700e12, "int": 50e12}


@dataclass
class ValidationReport:
    """Outcome of validating one task; ``problems`` is empty when it is valid."""

    name: str
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    gpu_bytes: int | None = None
    gpu_flops: int | None = None
    est_gpu_us: float | None = None
    output_shapes: list[tuple[int, ...]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def degenerate_reason(out: torch.Tensor, other: torch.Tensor | None, dtype: str = "fp32",
                      input_rms: float = 0.0) -> str | None:
    """Why an output is degenerate (None if it is not). ``other`` is the output for another input seed;
    ``input_rms`` the inputs' scale (an output far below it is rounding noise, e.g. the mean of a
    centred row)."""
    if out.numel() == 0:
        return "output is empty"
    if out.is_floating_point() or out.is_complex():
        x = out.detach().double().flatten()
        if not torch.isfinite(x).all():
            return f"{(~torch.isfinite(x)).float().mean().item():.0%} of output values are NaN/Inf"
        rms = x.pow(2).mean().sqrt().item()
        if rms == 0.0:
            return "output is all zeros"
        if rms < NOISE * max(1.0, input_rms):
            return f"output is rounding noise (rms {rms:.1e} against inputs of rms {input_rms:.1e})"
        tol = NEAR.get(dtype, 1e-4) * rms
        zero = (x.abs() <= tol).double().mean().item()
        if x.numel() < MIN_STAT_ELEMENTS:  # a scalar (e.g. a loss): only the seed check is meaningful
            zero = near_mean = 0.0
        else:
            near_mean = ((x - x.mean()).abs() <= tol).double().mean().item()
        if zero > MAX_NEAR_ZERO:
            return f"{zero:.0%} of output values are near zero (limit {MAX_NEAR_ZERO:.0%})"
        if near_mean > MAX_NEAR_MEAN:
            return f"{near_mean:.0%} of output values are near their mean (limit {MAX_NEAR_MEAN:.0%})"
        if other is not None and other.shape == out.shape:
            same = ((x - other.detach().double().flatten()).abs() <= tol).double().mean().item()
            if same > MAX_UNCHANGED:
                return f"{same:.0%} of output values do not change with the inputs (limit {MAX_UNCHANGED:.0%})"
        return None
    x = out.flatten()
    zero = (x == 0).double().mean().item()
    if zero > MAX_NEAR_ZERO:
        return f"{zero:.0%} of output values are zero (limit {MAX_NEAR_ZERO:.0%})"
    mode = torch.mode(x.long()).values
    if (x == mode).double().mean().item() > MAX_NEAR_MEAN:
        return f"most output values equal {mode.item()} (limit {MAX_NEAR_MEAN:.0%})"
    if other is not None and other.shape == out.shape:
        same = (x == other.flatten()).double().mean().item()
        if same > MAX_UNCHANGED:
            return f"{same:.0%} of output values do not change with the inputs (limit {MAX_UNCHANGED:.0%})"
    return None


NON_NEGATIVE_NOTE = ("input {i} is non-negative (torch.rand, KernelBench's convention); the sandbox's signed "
                     "variants still check negative values")


def _domain_problem(i: int, x: torch.Tensor, domain) -> str | None:
    if domain is None or domain == "any":
        return None
    lo, hi = {"positive": (0.0, float("inf")), "unit": (0.0, 1.0)}.get(domain, domain) \
        if isinstance(domain, str) else domain
    bad = (x <= lo) if domain == "positive" else (x < lo) | (x > hi)
    if bool(bad.any()):
        return f"input {i} has values outside its declared domain {domain!r}"
    return None


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        torch.nan_to_num(a.detach(), nan=0.0) if a.is_floating_point() else a,
        torch.nan_to_num(b.detach(), nan=0.0) if b.is_floating_point() else b)


def _gpu_estimate(mod, task: Task, report: ValidationReport) -> None:
    """Footprint and rough time of the GPU shapes, computed on the meta device (best effort)."""
    from torch.utils.flop_counter import FlopCounterMode

    try:
        with torch.device("meta"):
            inputs = make_inputs(mod, 0, small=False)
            model = build_model(mod, "meta")
            counter = FlopCounterMode(display=False)
            with torch.no_grad(), counter:
                outs = flat_tensors(model(*inputs))
    except Exception:  # some ops have no meta kernel: no estimate, not a problem
        return
    tensors = [t for t in inputs if isinstance(t, torch.Tensor)] + outs
    io = sum(t.numel() * t.element_size() for t in tensors)
    params = sum(p.numel() * p.element_size() for p in model.parameters())
    report.gpu_bytes = io + params
    report.gpu_flops = int(counter.get_total_flops())
    peak = PEAK_FLOPS.get(task.dtype, 50e12)
    report.est_gpu_us = 1e6 * max(report.gpu_bytes / BANDWIDTH, report.gpu_flops / peak)
    if report.gpu_bytes > GPU_MEMORY_LIMIT:
        report.problems.append(f"GPU inputs, weights and outputs need {report.gpu_bytes / 2**30:.1f} GiB "
                               f"(limit {GPU_MEMORY_LIMIT / 2**30:.0f} GiB)")


QUALITY = ("degenerate output", "ill-conditioned", "overflows", "GPU inputs, weights")


def _quality(problem: str) -> bool:
    return problem.startswith(QUALITY) or (problem.startswith("output ") and " is degenerate: " in problem)


def validate_task(task: Task, *, gpu_shapes: bool = True, seeds: tuple[int, int] = (0, 1),
                  strict: bool | None = None) -> ValidationReport:
    """Check one task (see the module docstring); never raises for a bad task, reports problems.
    ``strict=None``: quality findings are problems only for tasks with LEAP metadata."""
    t0 = time.perf_counter()
    report = ValidationReport(task.name)
    strict = task.leap_metadata if strict is None else strict
    if task.unavailable:  # never executed: loading it would reach for the network
        report.problems.append(task.unavailable)
        return report
    try:
        found = _check(task, report, gpu_shapes, seeds)
        report.problems.extend(found)
        if not strict:
            report.warnings.extend(p for p in report.problems if _quality(p))
            report.problems = [p for p in report.problems if not _quality(p)]
    except TaskError as exc:
        report.problems.append(str(exc))
    except Exception as exc:  # a broken reference is a finding, not a crash
        report.problems.append(f"reference fails on the CPU ({type(exc).__name__}: {str(exc)[:200]})")
    report.seconds = time.perf_counter() - t0
    return report


def _check(task: Task, report: ValidationReport, gpu_shapes: bool, seeds: tuple[int, int]) -> list[str]:
    full = load_module(task)
    small = hasattr(full, "get_small_inputs")
    mod = full
    if not small:
        sizing = cpu_sizing(task.source)
        if sizing.error:
            return [sizing.error]
        if sizing.changes:
            report.notes.append(sizing.note)
            mod = load_module(task.model_copy(update={"source": sizing.source}))
    problems: list[str] = []
    model = build_model(mod)
    inputs, out = run_reference(mod, seeds[0], small, model)
    if not out:
        return ["forward returns no tensor"]
    report.output_shapes = [tuple(t.shape) for t in out]
    for i, x in enumerate(inputs):
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            p = _domain_problem(i, x, task.input_domains.get(i))
            if p:
                problems.append(p)
            elif task.input_domains.get(i) in (None, "any") and x.numel() and not bool((x < 0).any()):
                report.notes.append(NON_NEGATIVE_NOTE.format(i=i))
    again_inputs = make_inputs(mod, seeds[0], small)
    if not all(_same(a, b) for a, b in zip(inputs, again_inputs, strict=True)
               if isinstance(a, torch.Tensor)):
        problems.append("inputs are not reproducible under a fixed seed")
    fresh = build_model(mod)
    kept = clone_args(inputs)
    seed_all(seeds[0] + 7919)  # a forward that draws random numbers shows up as a difference
    with torch.no_grad():
        again = flat_tensors(fresh(*kept))
    if len(again) != len(out) or not all(_same(a, b) for a, b in zip(out, again, strict=True)):
        line = ("reference draws random numbers in forward (two runs on the same inputs differ, e.g. dropout or "
                "a random h0): a candidate matches only by drawing the same numbers in the same order")
        (report.notes if task.random_forward else report.warnings).append(line)
        out_det = False
    else:
        out_det = True
    if not all(_same(a, b) for a, b in zip(inputs, kept, strict=True) if isinstance(a, torch.Tensor)):
        problems.append("reference modifies its inputs in place")
    _, other = run_reference(mod, seeds[1], small, model)
    if not out_det:  # statistics of a random output say nothing about degeneracy
        if gpu_shapes:
            _gpu_estimate(full, task, report)
        return problems
    in_rms = max((x.double().pow(2).mean().sqrt().item() for x in inputs
                  if isinstance(x, torch.Tensor) and x.is_floating_point() and x.numel()), default=0.0)
    for k, t in enumerate(out):
        why = degenerate_reason(t, other[k] if k < len(other) else None, task.dtype, in_rms)
        if why:
            problems.append(f"output {k} is degenerate: {why}" if len(out) > 1 else f"degenerate output: {why}")
    if not problems:
        try:
            p = _conditioning_problem(model, build_model(mod).double(), task, inputs)
        except Exception as exc:  # noqa: BLE001 - the shadow run only; the reference itself ran
            report.notes.append("conditioning not checked: the float64 copy of the reference fails "
                                 f"({type(exc).__name__}: {str(exc).splitlines()[0][:160]})")
            p = None
        if p:
            problems.append(p)
    if gpu_shapes:
        _gpu_estimate(full, task, report)
    return problems


_float_keeps_double = float_keeps_double  # the shared twin helper (leap.tasks.module); the old name stays


def _conditioning_problem(model: torch.nn.Module, exact_model: torch.nn.Module, task: Task,
                          inputs: list) -> str | None:
    """Compare the reference with its float64 twin (built afresh under the same seed, not deep-copied: a
    deep copy keeps closures over the original's layers, e.g. a lambda made in ``__init__``) on scaled
    inputs (the sandbox's variants)."""
    tol = TOL.get(task.dtype, 1e-4)
    if tol == 0.0:
        return None
    for label, scale in VARIANTS:
        args = [x * scale if isinstance(x, torch.Tensor) and x.is_floating_point()
                and task.input_domains.get(i, "any") == "any" else x for i, x in enumerate(inputs)]
        with torch.no_grad():
            got = flat_tensors(model(*clone_args(args)))
            with float_keeps_double():
                exact = flat_tensors(exact_model(*double_args(args)))
        for g, e in zip(got, exact, strict=False):
            if not g.is_floating_point():
                continue
            g, e = g.double(), e.double()
            ok = torch.isfinite(g) & torch.isfinite(e)
            if ok.double().mean().item() < 0.5:
                continue  # the sandbox skips a variant whose reference is mostly NaN/Inf
            if bool((torch.isnan(g) & torch.isfinite(e)).any()):
                return (f"overflows: on {label} the {task.dtype} reference has NaN where float64 is finite "
                        "(an overflow turned into NaN; Inf or NaN there is an accident of the formulas)")
            g, e = g[ok], e[ok]
            rms = e.pow(2).mean().sqrt().item()
            if rms == 0.0:
                continue
            ratio = ((g - e).abs() / (tol * rms + tol * e.abs())).max().item()
            if ratio > CONDITION_SHARE.get(task.dtype, 1.0):
                return (f"ill-conditioned: on {label} the {task.dtype} reference is {ratio:.2f}x the tolerance "
                        "away from float64 (cancellation); no kernel could match it reliably")
    return None


def validate_tasks(tasks, *, gpu_shapes: bool = True, strict: bool | None = None) -> list[ValidationReport]:
    """Validate many tasks in order (one report each)."""
    with single_thread():
        return [validate_task(t, gpu_shapes=gpu_shapes, strict=strict) for t in tasks]
