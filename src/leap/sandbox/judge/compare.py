"""Judge-side comparison of a candidate's outputs with the reference (DESIGN.md §3 step 3).

Exact checks first, over the whole output before any value: container structure (tuple vs list,
length, keys), plain ``torch.Tensor`` (no subclass), shape, dtype, device type and layout. Then values,
on the reference's device in a few passes: NaN and signed Inf positions must match; finite values must
satisfy ``|out - ref| <= atol * rms(ref) + rtol * |ref|`` with rtol = atol = the dtype's tolerance
(fp32 1e-4, fp16 1e-2, bf16 1.6e-2); integers and bools exact. `bit_identical` checks
inputs-unchanged and poison-independence bit for bit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from leap.sandbox.judge.inputs import is_degenerate  # noqa: F401 - re-exported for the runtime

DEFAULT_TOLERANCES: dict[str, float] = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1.6e-2}
DTYPE_KEYS: dict[torch.dtype, str] = {
    torch.float32: "fp32", torch.float64: "fp32", torch.complex64: "fp32", torch.complex128: "fp32",
    torch.float16: "fp16", torch.bfloat16: "bf16",
}
_Tensor = torch.Tensor  # bound at import: a candidate cannot swap what the judge compares with
_isnan, _isposinf, _isneginf, _equal = torch.isnan, torch.isposinf, torch.isneginf, torch.equal
CHUNK = 1 << 20  # mismatch positions are searched this many elements at a time


@dataclass(frozen=True)
class Mismatch:
    """One wrong value: which output (``"out"``, ``"out[1]"``...), where, what was expected, what came."""

    output: str
    index: tuple[int, ...]
    expected: Any
    got: Any


@dataclass
class CompareResult:
    """Outcome of a comparison; ``message`` is policy-facing text (reason and first mismatches)."""

    ok: bool
    reason: str = ""  # "" | structure | type | shape | dtype | device | value | nan | inf | modified | nondeterministic
    message: str = ""
    max_abs_error: float | None = None
    max_rel_error: float | None = None
    mismatches: list[Mismatch] = field(default_factory=list)
    n_bad: int = 0
    n_total: int = 0


def tolerance_for(dtype: torch.dtype, tolerances: Mapping[str, float] | None = None) -> float:
    """Default rtol = atol for an output dtype (``tolerances`` overrides the built-in defaults)."""
    key = DTYPE_KEYS.get(dtype)
    if key is None:  # fp8 and other narrow floats
        return 0.125
    table = {**DEFAULT_TOLERANCES, **(dict(tolerances) if tolerances else {})}
    return float(table[key])


def _fail(reason: str, message: str, **kw: Any) -> CompareResult:
    return CompareResult(False, reason, message, **kw)


def _fmt(v: Any) -> str:
    return f"{v:.6g}" if isinstance(v, float) else str(v)


def _mismatch_text(ms: list[Mismatch]) -> str:
    return "; ".join(f"{m.output}{list(m.index)}: expected {_fmt(m.expected)}, got {_fmt(m.got)}" for m in ms)


def _unravel(i: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(i // math.prod(shape[d + 1:]) % shape[d] for d in range(len(shape)))


def _first(mask: torch.Tensor, ref: torch.Tensor, out: torch.Tensor, name: str, k: int) -> list[Mismatch]:
    """The first ``k`` flagged positions, searched chunk by chunk (never all indices of a huge mask)."""
    flat, found = mask.reshape(-1), []
    for s in range(0, flat.numel(), CHUNK):
        hits = flat[s:s + CHUNK].nonzero().flatten()[:k - len(found)]
        found.extend(s + int(h) for h in hits.tolist())
        if len(found) >= k:
            break
    idx = [_unravel(i, tuple(mask.shape)) for i in found]
    return [Mismatch(name, i, ref[i].item(), out[i].item()) for i in idx]


def _meta(ref: torch.Tensor, out: Any, name: str) -> CompareResult | None:
    """Exact checks of one output tensor: plain tensor, shape, dtype, device type, layout."""
    if type(out) is not _Tensor:
        return _fail("type", f"{name}: expected a torch.Tensor, got {type(out).__name__}.")
    if out.shape != ref.shape:
        return _fail("shape", f"{name}: shape mismatch: expected {tuple(ref.shape)}, got {tuple(out.shape)}.")
    if out.dtype != ref.dtype:
        return _fail("dtype", f"{name}: dtype mismatch: expected {ref.dtype}, got {out.dtype}.")
    if out.device.type != ref.device.type:
        return _fail("device", f"{name}: device mismatch: expected {ref.device.type}, got {out.device.type}.")
    if out.layout != ref.layout:
        return _fail("type", f"{name}: layout mismatch: expected {ref.layout}, got {out.layout}.")
    return None


def _nonfinite(r: torch.Tensor, o: torch.Tensor, name: str, rt: float, k: int, top: float) -> CompareResult | None:
    """NaN positions must match exactly; signed Inf positions too, except an overflow on one side next to
    ``top``, the output dtype's largest finite value (rounding, not a bug: fp16 x100 inputs)."""
    n = r.numel()
    rn, on = _isnan(r), _isnan(o)
    if not _equal(rn, on):
        bad = rn != on
        nb = int(bad.sum())
        ms = _first(bad, r, o, name, k)
        return _fail("nan", f"{name}: NaN positions differ from the reference ({nb} of {n}); "
                            f"{_mismatch_text(ms)}.", mismatches=ms, n_bad=nb, n_total=n)
    edge = top / (1.0 + max(rt, 1e-3))
    for test, label, sign in ((_isposinf, "+Inf", 1.0), (_isneginf, "-Inf", -1.0)):
        tr, to = test(r), test(o)
        if not _equal(tr, to):
            bad = (tr != to) & ~(torch.where(tr, o, r) * sign >= edge)
            if bool(bad.any()):
                nb = int(bad.sum())
                ms = _first(bad, r, o, name, k)
                return _fail("inf", f"{name}: {label} positions differ from the reference ({nb} of {n}); "
                                    f"{_mismatch_text(ms)}.", mismatches=ms, n_bad=nb, n_total=n)
    return None


def _values(ref: torch.Tensor, out: torch.Tensor, name: str, rtol: float | None, atol: float | None,
            tolerances: Mapping[str, float] | None, k: int) -> CompareResult:
    """Value check of two tensors that passed `_meta`: a few fused passes on the device, no float64
    copies of fp32/fp16/bf16 data (half types are widened to fp32)."""
    if out.device != ref.device:
        out = out.to(ref.device)
    r, o = ref.detach(), out.detach().resolve_conj().resolve_neg()
    if r.is_complex():
        r, o = torch.view_as_real(r.resolve_conj()), torch.view_as_real(o)
    n = r.numel()
    if n == 0:
        return CompareResult(True, n_total=0)
    if _equal(r, o):  # bit-for-bit equal values (no NaN): the common case of an exact kernel
        return CompareResult(True, max_abs_error=0.0, max_rel_error=0.0, n_total=n)
    if not r.is_floating_point():
        bad = r != o
        nb = int(bad.sum())
        ms = _first(bad, r, o, name, k)
        return _fail("value", f"{name}: {nb} of {n} values differ (exact match required); {_mismatch_text(ms)}.",
                     mismatches=ms, n_bad=nb, n_total=n, max_abs_error=float((r.double() - o.double()).abs().max()))
    default = tolerance_for(ref.dtype, tolerances)
    rt = default if rtol is None else float(rtol)
    at = default if atol is None else float(atol)
    wide = torch.float64 if r.dtype == torch.float64 else torch.float32
    rf, of = r.to(wide), o.to(wide)
    diff = torch.sub(of, rf).abs_()
    norm, max_abs, n_fin = float(torch.linalg.vector_norm(rf)), float(diff.max()), n
    if not (math.isfinite(norm) and math.isfinite(max_abs)):  # some NaN/Inf (or an overflow)
        fail = _nonfinite(rf, of, name, rt, k, float(torch.finfo(r.dtype).max))
        if fail is not None:
            return fail
        fin = torch.isfinite(rf) & torch.isfinite(of)
        n_fin = int(fin.sum())
        if n_fin == 0:
            return CompareResult(True, max_abs_error=0.0, max_rel_error=0.0, n_total=n)
        rf, of = torch.where(fin, rf, 0.0), torch.where(fin, of, 0.0)  # non-finite pairs count as equal
        diff = torch.sub(of, rf).abs_()
        norm, max_abs = float(torch.linalg.vector_norm(rf)), float(diff.max())
        if not math.isfinite(norm):  # squares overflow fp32: widen only for the norm
            norm = float(torch.linalg.vector_norm(rf, dtype=torch.float64))
    rms = norm / math.sqrt(n_fin)
    scale = max(rms, float(torch.finfo(r.dtype).tiny))
    buf = rf.abs()
    bad = diff > buf.mul_(rt).add_(at * scale)
    max_rel = float(diff.div_(torch.abs(rf, out=buf).clamp_min_(scale * 1e-6)).max())
    if bool(bad.any()):
        nb = int(bad.sum())
        ms = _first(bad, r, o, name, k)
        return _fail("value", f"{name}: {nb} of {n} values outside tolerance (rtol {rt:g}, atol {at:g} x output "
                              f"RMS {rms:.3g}); max abs error {max_abs:.3g}, max rel error {max_rel:.3g}; "
                              f"first mismatches: {_mismatch_text(ms)}.",
                     max_abs_error=max_abs, max_rel_error=max_rel, mismatches=ms, n_bad=nb, n_total=n)
    return CompareResult(True, max_abs_error=max_abs, max_rel_error=max_rel, n_total=n)


def _structure(ref: Any, out: Any, name: str) -> CompareResult | None:
    """The first structural mismatch (containers, keys, lengths, leaf types, tensor metadata)."""
    if isinstance(ref, torch.Tensor):
        return _meta(ref, out, name)
    if isinstance(ref, list | tuple):
        if type(out) is not type(ref):
            return _fail("structure", f"{name}: expected a {type(ref).__name__}, got {type(out).__name__}.")
        if len(out) != len(ref):
            return _fail("structure", f"{name}: expected {len(ref)} elements, got {len(out)}.")
        for i, (r, o) in enumerate(zip(ref, out, strict=True)):
            fail = _structure(r, o, f"{name}[{i}]")
            if fail is not None:
                return fail
        return None
    if isinstance(ref, dict):
        if type(out) is not type(ref) or list(out) != list(ref):
            return _fail("structure", f"{name}: expected a dict with keys {list(ref)}.")
        for key in ref:
            fail = _structure(ref[key], out[key], f"{name}[{key!r}]")
            if fail is not None:
                return fail
        return None
    if type(out) is not type(ref):
        return _fail("type", f"{name}: expected {type(ref).__name__}, got {type(out).__name__}.")
    return None


def _walk(ref: Any, out: Any, name: str, kw: dict, results: list[CompareResult]) -> CompareResult | None:
    """Compare values (structure already checked); the first failure, or None with successes in ``results``."""
    if isinstance(ref, torch.Tensor):
        res = _meta(ref, out, name) or _values(ref, out, name, **kw)
        if not res.ok:
            return res
        results.append(res)
        return None
    if isinstance(ref, list | tuple | dict):
        keys = list(ref) if isinstance(ref, dict) else range(len(ref))
        for key in keys:
            label = f"{name}[{key!r}]" if isinstance(ref, dict) else f"{name}[{key}]"
            fail = _walk(ref[key], out[key], label, kw, results)
            if fail is not None:
                return fail
        return None
    if isinstance(ref, float) and (math.isnan(ref) and math.isnan(out)):
        return None
    if isinstance(ref, float):
        t = kw["rtol"] if kw["rtol"] is not None else DEFAULT_TOLERANCES["fp32"]
        ok = math.isclose(ref, out, rel_tol=t, abs_tol=t)
    else:
        ok = ref == out
    return None if ok else _fail("value", f"{name}: expected {ref!r}, got {out!r}.")


def compare_outputs(ref: Any, out: Any, *, dtype: str | None = None, rtol: float | None = None,
                    atol: float | None = None, tolerances: Mapping[str, float] | None = None,
                    max_mismatches: int = 5) -> CompareResult:
    """Compare a candidate's output with the reference output (tensors, tuples/lists/dicts of them).

    ``rtol``/``atol`` (the task's overrides) apply to every floating output; when ``None`` each output
    gets its own dtype's tolerance from ``tolerances`` (e.g. ``SandboxConfig.tolerances.model_dump()``)
    over the defaults. ``dtype`` (the task's declared dtype) is accepted for compatibility; tolerances
    follow each output tensor's own dtype."""
    del dtype  # tolerances follow each output tensor's own dtype
    results: list[CompareResult] = []
    fail = _structure(ref, out, "output") or _walk(ref, out, "output", dict(rtol=rtol, atol=atol, tolerances=tolerances, k=max_mismatches), results)
    if fail is not None:
        return fail
    abs_errs = [r.max_abs_error for r in results if r.max_abs_error is not None]
    rel_errs = [r.max_rel_error for r in results if r.max_rel_error is not None]
    return CompareResult(True, max_abs_error=max(abs_errs) if abs_errs else None,
                         max_rel_error=max(rel_errs) if rel_errs else None,
                         n_total=sum(r.n_total for r in results))


def bit_identical(a: Any, b: Any) -> bool:
    """Same structure, shapes, dtypes, devices and the same bits (NaN payloads included) everywhere."""
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
            return False
        if a.shape != b.shape or a.dtype != b.dtype or a.device.type != b.device.type:
            return False
        if a.numel() == 0:
            return True
        if b.device != a.device:
            b = b.to(a.device)
        xa, xb = a.detach().contiguous().reshape(-1), b.detach().contiguous().reshape(-1)
        if a.dtype != torch.bool:
            xa, xb = xa.view(torch.uint8), xb.view(torch.uint8)
        return bool(_equal(xa, xb))
    if isinstance(a, list | tuple) or isinstance(b, list | tuple):
        return type(a) is type(b) and len(a) == len(b) and all(
            bit_identical(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) or isinstance(b, dict):
        return type(a) is type(b) and list(a) == list(b) and all(bit_identical(a[k], b[k]) for k in a)
    try:
        return type(a) is type(b) and bool(a == b or (a != a and b != b))
    except Exception:  # noqa: BLE001 - objects without a usable ==
        return False


def check_inputs_unchanged(before: Any, after: Any) -> CompareResult:
    """Inputs must be bit-identical after the call."""
    if bit_identical(before, after):
        return CompareResult(True)
    return _fail("modified", "forward modified its input tensors; inputs must be left unchanged.")


def check_poison_identical(out_a: Any, out_b: Any) -> CompareResult:
    """Two runs on the same inputs with differently poisoned memory must agree bit for bit."""
    if bit_identical(out_a, out_b):
        return CompareResult(True)
    return _fail("nondeterministic", "Outputs differ between two runs on the same inputs: the kernel reads "
                                     "memory it did not write (uninitialised or out of bounds).")
