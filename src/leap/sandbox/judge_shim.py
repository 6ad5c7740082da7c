"""Calls into the judge engineer's modules (backends, task_module, inputs, compare, feedback), with a
minimal built-in version of each used only while that module is missing or lacks the function.

Everything here runs in the judge (parent) process, never in a candidate's process.
"""

from __future__ import annotations

import ast
import importlib
import math
import re
import types
from dataclasses import dataclass, field

import torch


def _judge(module: str, attr: str):
    try:
        mod = importlib.import_module(f"leap.sandbox.{module}")
    except ImportError:
        return None
    return getattr(mod, attr, None)


# -- backends -------------------------------------------------------------------------------------
def detect_backend(source: str) -> str | None:
    fn = _judge("backends", "detect_backend")
    if fn is not None:
        return fn(source)
    if re.search(r"load_inline\s*\(", source):
        return "cuda_inline"
    if re.search(r"RawKernel|RawModule|cuda\.core|from\s+cuda\.core|nvrtc", source):
        return "cuda_nvrtc"
    if re.search(r"@\s*triton\.jit|import\s+triton|from\s+triton", source):
        return "triton"
    return None


# -- static gate ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Gate:
    ok: bool
    status: str = "ok"
    reason: str = ""
    detail: str = ""


def gate(source: str, backend: str | None, allowed_ops, full: bool = True) -> Gate:
    """The hardening engineer's static gate; until it exists (or with ``full=False``), syntax +
    ``class ModelNew`` only."""
    check_source = None
    if full:
        try:
            from leap.sandbox.static_gate import check_source
        except ImportError:
            pass
    if check_source is not None:
        g = check_source(source, backend, allowed_ops=list(allowed_ops))
        status = getattr(g, "status", "ok" if g.ok else "rejected")
        return Gate(bool(g.ok), status, getattr(g, "reason", ""), getattr(g, "detail", ""))
    if not source.strip():
        return Gate(False, "format_error", "No code found: the answer must contain a Python solution.")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        return Gate(False, "format_error", f"The solution is not valid Python (line {exc.lineno}: {exc.msg}).",
                    "syntax")
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        return Gate(False, "format_error", "The solution must define class ModelNew(nn.Module).", "no_modelnew")
    return Gate(True)


# -- task module + reference ----------------------------------------------------------------------
def load_task_module(source: str, name: str) -> types.ModuleType:
    fn = _judge("task_module", "load_task_module")
    if fn is not None:
        return fn(source, name)
    mod = types.ModuleType(f"leap_task_{re.sub(r'[^A-Za-z0-9_]', '_', name)}")
    exec(compile(source, f"<task {name}>", "exec"), mod.__dict__)  # trusted task source
    return mod


def init_inputs(module: types.ModuleType, seed: int) -> list:
    fn = _judge("task_module", "init_inputs")
    if fn is not None:
        return list(fn(module, seed))
    torch.manual_seed(seed)
    return list(module.get_init_inputs())


def build_reference(module: types.ModuleType, init_inputs: list, seed: int, device: str):
    fn = _judge("task_module", "build_model")
    if fn is not None:
        return fn(module, init_inputs, seed, device)
    torch.manual_seed(seed)
    return module.Model(*init_inputs).to(device)  # train mode, like the candidate (KernelBench)


# -- trial inputs ---------------------------------------------------------------------------------
@dataclass
class Trial:
    name: str
    inputs: list
    meta: dict = field(default_factory=dict)


VARIANTS = ("task", "randn", "x100", "x1e-3")


def make_trials(task, module: types.ModuleType, *, n_trials: int, seed: int, small: bool,
                device: str = "cpu") -> list[Trial]:
    fn = _judge("inputs", "make_trials")
    if fn is not None:
        return [t if isinstance(t, Trial) else Trial(getattr(t, "name", "trial"), list(t.inputs))
                for t in fn(task, module, n_trials=n_trials, seed=seed, small=small, device=device)]
    make = module.get_small_inputs if small and hasattr(module, "get_small_inputs") else module.get_inputs
    trials = []
    for i in range(n_trials):
        variant = VARIANTS[i % len(VARIANTS)]
        torch.manual_seed(seed + i)
        inputs = list(make())
        out = []
        for j, x in enumerate(inputs):
            if isinstance(x, torch.Tensor) and x.is_floating_point() and j not in task.input_domains:
                if variant == "randn":
                    x = torch.randn_like(x)
                elif variant == "x100":
                    x = x * 100
                elif variant == "x1e-3":
                    x = x * 1e-3
            out.append(x)
        trials.append(Trial(variant, out))
    return trials


def is_degenerate(ref) -> bool:
    fn = _judge("compare", "is_degenerate")
    if fn is not None:
        return bool(fn(ref))
    tensors = [t for t in _flat(ref) if isinstance(t, torch.Tensor) and t.is_floating_point() and t.numel() > 1]
    if not tensors:
        return False
    for t in tensors:
        finite = torch.isfinite(t)
        if finite.float().mean() < 0.5:
            return True
        vals = t[finite]
        if vals.numel() > 1 and bool((vals == vals.flatten()[0]).all()):
            return True
    return False


# -- comparison -----------------------------------------------------------------------------------
@dataclass
class Compared:
    ok: bool
    message: str = ""
    max_abs_error: float | None = None
    max_rel_error: float | None = None


def _flat(obj) -> list:
    if isinstance(obj, list | tuple):
        return [y for x in obj for y in _flat(x)]
    return [obj]


def compare_outputs(ref, out, *, dtype: str, tol: float | None, rtol: float | None, atol: float | None,
                    tolerances: dict | None = None) -> Compared:
    fn = _judge("compare", "compare_outputs")
    if fn is not None:
        r = fn(ref, out, dtype=dtype, rtol=rtol, atol=atol, tolerances=tolerances)
        return Compared(bool(r.ok), getattr(r, "message", ""), getattr(r, "max_abs_error", None),
                        getattr(r, "max_rel_error", None))
    refs, outs = _flat(ref), _flat(out)
    if type(ref) is not type(out) and not (isinstance(ref, torch.Tensor) and isinstance(out, torch.Tensor)):
        return Compared(False, f"Output type mismatch: expected {type(ref).__name__}, got {type(out).__name__}.")
    if len(refs) != len(outs):
        return Compared(False, f"Expected {len(refs)} outputs, got {len(outs)}.")
    worst_abs = worst_rel = 0.0
    for k, (r, o) in enumerate(zip(refs, outs, strict=True)):
        if not isinstance(r, torch.Tensor):
            if r != o:
                return Compared(False, f"Output {k}: expected {r!r}, got {o!r}.")
            continue
        if not isinstance(o, torch.Tensor):
            return Compared(False, f"Output {k}: expected a tensor, got {type(o).__name__}.")
        if r.shape != o.shape:
            return Compared(False, f"Output {k}: shape mismatch: expected {tuple(r.shape)}, got {tuple(o.shape)}.")
        if r.dtype != o.dtype:
            return Compared(False, f"Output {k}: dtype mismatch: expected {r.dtype}, got {o.dtype}.")
        if not r.is_floating_point():
            if not torch.equal(r, o):
                bad = (r != o).nonzero()[:3].tolist()
                return Compared(False, f"Output {k}: values differ (exact match required) at {bad}.")
            continue
        rf, of = r.double(), o.double()
        rn, on = torch.isnan(rf), torch.isnan(of)
        if not torch.equal(rn, on):
            idx = (rn != on).nonzero()[:3].tolist()
            return Compared(False, f"Output {k}: NaN positions differ from the reference (e.g. at {idx}).")
        fin = torch.isfinite(rf)
        if not torch.equal(torch.isinf(rf), torch.isinf(of)) or not torch.equal(rf[~fin & ~rn], of[~fin & ~on]):
            return Compared(False, f"Output {k}: Inf positions differ from the reference.")
        t = tol if tol is not None else 1e-4
        rt, at = (rtol if rtol is not None else t), (atol if atol is not None else t)
        rv, ov = rf[fin], of[fin]
        if rv.numel() == 0:
            continue
        rms = float(rv.pow(2).mean().sqrt()) or 1.0
        diff = (ov - rv).abs()
        limit = at * rms + rt * rv.abs()
        max_abs = float(diff.max())
        max_rel = float((diff / rv.abs().clamp_min(1e-12 * rms)).max())
        worst_abs, worst_rel = max(worst_abs, max_abs), max(worst_rel, max_rel)
        bad = diff > limit
        if bool(bad.any()):
            full = torch.zeros_like(rf, dtype=torch.bool)
            full[fin] = bad
            where = full.nonzero()[:3].tolist()
            ex = "; ".join(f"at {tuple(w)} expected {float(rf[tuple(w)]):.6g}, got {float(of[tuple(w)]):.6g}"
                           for w in where)
            n = int(bad.sum())
            return Compared(False, f"Output {k}: {n} of {rv.numel()} values outside tolerance "
                                   f"(max abs error {max_abs:.3g}, max rel error {max_rel:.3g}); {ex}.",
                            max_abs, max_rel)
    return Compared(True, "", worst_abs, worst_rel if math.isfinite(worst_rel) else None)


def bit_identical(a, b) -> bool:
    """Exactly the same bits (NaNs included) in every tensor of two outputs."""
    fa, fb = _flat(a), _flat(b)
    if len(fa) != len(fb):
        return False
    for x, y in zip(fa, fb, strict=True):
        if isinstance(x, torch.Tensor) and isinstance(y, torch.Tensor):
            if x.shape != y.shape or x.dtype != y.dtype:
                return False
            xb = x.contiguous().view(-1).view(torch.uint8) if x.numel() else x
            yb = y.contiguous().view(-1).view(torch.uint8) if y.numel() else y
            if not torch.equal(xb, yb):
                return False
        elif isinstance(x, torch.Tensor) or isinstance(y, torch.Tensor) or x != y:
            return False
    return True


def trim_compiler_error(text: str, limit: int = 1500) -> str:
    fn = _judge("feedback", "trim_compiler_error")
    if fn is not None:
        return fn(text, limit=limit)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errs = [ln for ln in lines if re.search(r"error|Error", ln)]
    body = "\n".join(errs[:12] or lines[-12:])
    return body[:limit]


def mismatch_feedback(cmp: Compared, trial_index: int, variant: str, n_trials: int) -> str:
    fn = _judge("feedback", "mismatch_feedback")
    if fn is not None:
        return fn(cmp, trial_index, variant, n_trials)
    return f"Incorrect output on trial {trial_index + 1} of {n_trials} ({variant} inputs): {cmp.message}"


def speed_feedback(runtime_us, eager_us, compile_us, n_trials: int) -> str | None:
    fn = _judge("feedback", "speed_feedback")
    return fn(runtime_us, eager_us, compile_us, n_trials) if fn is not None else None
