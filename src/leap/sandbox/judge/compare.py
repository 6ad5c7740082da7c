"""Judge-side comparison of a candidate's outputs with the reference (DESIGN.md §3 step 3).

Exact checks first, over the whole output before any value: container structure (tuple vs list,
length, keys), plain ``torch.Tensor`` (no subclass), shape, dtype, device type and layout. Then values,
on the reference's device in a few passes: NaN and signed Inf positions must match; finite values must
satisfy ``|out - ref| <= atol * rms(ref) + rtol * |ref|`` with rtol = atol = the dtype's tolerance
(fp32 1e-4, fp16 1e-2, bf16 1.6e-2); integers and bools exact. `bit_identical` checks
inputs-unchanged and poison-independence bit for bit.

The exact answer (``compare_outputs(..., exact=..., spread=...)``). On an ill-conditioned trial (attention
on inputs x100) the reference in its own dtype misses that tolerance against the true answer by as much as
a correct kernel does, so a kernel as accurate as the reference can fail against it. Given ``exact`` — the
output of a float64 copy of the reference on the same inputs (`leap.sandbox.judge.reference.exact_reference`;
the judge computes it only for a trial that failed) — and ``spread`` — how far that exact answer moves,
value by value, when the inputs carry rounding noise of the reference's working precision (at least fp32's)
— a floating output that fails on values alone is accepted when, at every finite position,

    |out - exact| <= atol * rms(exact) + rtol * |exact| + max(|ref - exact|, spread)

that is, within the tolerance of the exact answer, widened only by the error the reference itself makes
there or by what rounding noise does to that value (large only where the answer is ill-conditioned: a
well-conditioned value moves by about the working precision's roundoff, far inside the tolerance). The
reference term alone is one sample of where rounding lands; a correct kernel's errors land elsewhere
(KernelBench's SDPA at x100: a correct Triton kernel failed on it alone in 4 draws of 10, with the spread
in none; causal_attention_bf16 at x100: 3 of 60 failed with the spread of fp32 noise, 2 of 60 with bf16's). Not used (the verdict stays the comparison with the reference) for integer/bool outputs, NaN/Inf
mismatches, a float64 output whose NaN/Inf positions differ from the reference's, or one where the widening
applies to more than `EXACT_MAX_REF_MISS` of the values (then it is no faithful copy of the reference, or
the whole output is ill-conditioned and nothing can be judged on it).
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
EXACT_MAX_REF_MISS = 0.25  # the reference may miss the tolerance vs float64 on at most this share of an output


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
    exact: str = ""  # how the exact (float64) answer was used: "" not given; else what it decided, per output


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
        return _mismatched(bad, r, o, name, k, n, lambda nb: (
            f"{nb} of {n} values outside tolerance (rtol {rt:g}, atol {at:g} x output RMS {rms:.3g}); max abs error "
            f"{max_abs:.3g}, max rel error {max_rel:.3g}; first mismatches:"), max_abs_error=max_abs,
            max_rel_error=max_rel)
    return CompareResult(True, max_abs_error=max_abs, max_rel_error=max_rel, n_total=n)


def _mismatched(bad: torch.Tensor, want: torch.Tensor, got: torch.Tensor, name: str, k: int, n: int, what,
                **errors) -> CompareResult:
    """The value failure for the positions ``bad``: ``what(n_bad)`` says what they miss, the first ``k``
    follow."""
    nb = int(bad.sum())
    ms = _first(bad, want, got, name, k)
    return _fail("value", f"{name}: {what(nb)} {_mismatch_text(ms)}.", mismatches=ms, n_bad=nb, n_total=n, **errors)


def _exact_values(ref: torch.Tensor, out: torch.Tensor, exact: Any, spread: Any, name: str, rtol: float | None,
                  atol: float | None, tolerances: Mapping[str, float] | None, k: int) -> CompareResult:
    """Value check of a floating output against the exact answer, allowing the reference's own error and the
    exact answer's ``spread`` (see the module docstring); ``ok`` only when every finite value passes. Errors
    reported are against ``ref``."""
    if not isinstance(exact, _Tensor) or tuple(exact.shape) != tuple(ref.shape) or not (
            exact.is_floating_point() or exact.is_complex()) or not (ref.is_floating_point() or ref.is_complex()):
        return _fail("value", f"{name}: no usable float64 answer")
    dev = ref.device
    r = ref.detach()
    o = out.detach().to(dev).resolve_conj().resolve_neg()
    e = exact.detach().to(dev).resolve_conj().resolve_neg()
    if r.is_complex() != e.is_complex():
        return _fail("value", f"{name}: no usable float64 answer")
    widen = None
    if isinstance(spread, _Tensor) and tuple(spread.shape) == tuple(ref.shape) and not spread.is_complex():
        widen = spread.detach().to(dev, torch.float64)
    if r.is_complex():
        r, o, e = torch.view_as_real(r.resolve_conj()), torch.view_as_real(o), torch.view_as_real(e)
        widen = widen.unsqueeze(-1).expand(r.shape) if widen is not None else None
    n = r.numel()
    default = tolerance_for(ref.dtype, tolerances)
    rt = default if rtol is None else float(rtol)
    at = default if atol is None else float(atol)
    r64, o64, e64 = r.to(torch.float64), o.to(torch.float64), e.to(torch.float64)
    fr, fe = torch.isfinite(r64), torch.isfinite(e64)
    if not _equal(fr, fe):
        nb = int((fr != fe).sum())
        return _fail("value", f"{name}: the float64 answer is NaN/Inf where the reference is not, or the other way "
                              f"({nb} of {n}); not used")
    fin = fr & torch.isfinite(o64)  # non-finite outputs already matched the reference's (the first comparison)
    n_fin = int(fin.sum())
    if n_fin == 0:
        return _fail("value", f"{name}: no finite values to compare with the float64 answer")
    r64, o64, e64 = torch.where(fin, r64, 0.0), torch.where(fin, o64, 0.0), torch.where(fin, e64, 0.0)
    rms = float(torch.linalg.vector_norm(e64)) / math.sqrt(n_fin)
    scale = max(rms, float(torch.finfo(r.dtype).tiny))
    tol = e64.abs().mul_(rt).add_(at * scale)
    ref_err = torch.sub(r64, e64).abs_()
    n_miss = int((ref_err > tol).sum())
    if widen is not None:
        ref_err = torch.maximum(ref_err, torch.where(fin, widen, 0.0))
    n_wide = int((ref_err > tol).sum())
    if n_wide > EXACT_MAX_REF_MISS * n_fin:
        return _fail("value", f"{name}: the reference misses the tolerance against the float64 answer, or rounding noise "
                              f"moves that answer beyond it, on {n_wide} of {n_fin} values: the float64 copy is not used")
    out_err = torch.sub(o64, e64).abs_()
    bad = out_err > tol.add_(ref_err)
    if bool(bad.any()):
        return _mismatched(bad, e64, o64, name, k, n, lambda nb: (
            f"{nb} of {n} values are farther from the float64 answer than the tolerance widened by the reference's "
            f"error and the answer's spread (the reference misses the tolerance on {n_miss}, the widening applies "
            f"on {n_wide});"))
    diff = torch.sub(o64, r64).abs_()
    max_abs = float(diff.max())
    max_rel = float(diff.div_(r64.abs().clamp_min_(scale * 1e-6)).max())
    return CompareResult(True, max_abs_error=max_abs, max_rel_error=max_rel, n_total=n,
                         exact=f"{name}: outside the tolerance of the reference, within it of the float64 answer "
                               f"widened by the reference's own error and the answer's spread under rounding noise "
                               f"(the reference misses the tolerance on {n_miss} of {n_fin} values, the widening "
                               f"applies on {n_wide})")


def _leaf(tree: Any, key: Any) -> Any:
    """``tree[key]`` when ``tree`` is a container holding it, else None (an exact answer shaped unlike the
    reference is simply not used there)."""
    try:
        if isinstance(tree, dict):
            return tree.get(key)
        if isinstance(tree, list | tuple) and isinstance(key, int) and key < len(tree):
            return tree[key]
    except Exception:  # noqa: BLE001
        return None
    return None


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


def _walk(ref: Any, out: Any, name: str, kw: dict, results: list[CompareResult],
          exact: Any = None, spread: Any = None) -> CompareResult | None:
    """Compare values (structure already checked); the first failure, or None with successes in ``results``.
    With ``exact`` (the float64 answer, shaped like ``ref``; ``spread`` likewise), a tensor failing on values
    alone gets `_exact_values`: its success replaces the failure; its failure's text goes in the failure's
    ``exact``."""
    if isinstance(ref, torch.Tensor):
        res = _meta(ref, out, name) or _values(ref, out, name, **kw)
        if not res.ok and exact is not None and res.reason == "value":
            again = _exact_values(ref, out, exact, spread, name, **kw)
            if not again.ok:
                res.exact = again.message
                return res
            res = again
        if not res.ok:
            return res
        results.append(res)
        return None
    if isinstance(ref, list | tuple | dict):
        keys = list(ref) if isinstance(ref, dict) else range(len(ref))
        for key in keys:
            label = f"{name}[{key!r}]" if isinstance(ref, dict) else f"{name}[{key}]"
            fail = _walk(ref[key], out[key], label, kw, results, _leaf(exact, key), _leaf(spread, key))
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
                    max_mismatches: int = 5, exact: Any = None, spread: Any = None) -> CompareResult:
    """Compare a candidate's output with the reference output (tensors, tuples/lists/dicts of them).

    ``rtol``/``atol`` (the task's overrides) apply to every floating output; when ``None`` each output
    gets its own dtype's tolerance from ``tolerances`` (e.g. ``SandboxConfig.tolerances.model_dump()``)
    over the defaults. ``dtype`` (the task's declared dtype) is accepted for compatibility; tolerances
    follow each output tensor's own dtype. ``exact``: the float64 reference's output on the same inputs,
    ``spread`` its spread under rounding noise (see the module docstring); the result's ``exact`` then says
    where they decided."""
    del dtype  # tolerances follow each output tensor's own dtype
    results: list[CompareResult] = []
    kw = dict(rtol=rtol, atol=atol, tolerances=tolerances, k=max_mismatches)
    fail = _structure(ref, out, "output") or _walk(ref, out, "output", kw, results, exact, spread)
    if fail is not None:
        return fail
    abs_errs = [r.max_abs_error for r in results if r.max_abs_error is not None]
    rel_errs = [r.max_rel_error for r in results if r.max_rel_error is not None]
    return CompareResult(True, max_abs_error=max(abs_errs) if abs_errs else None,
                         max_rel_error=max(rel_errs) if rel_errs else None,
                         n_total=sum(r.n_total for r in results),
                         exact="; ".join(r.exact for r in results if r.exact))


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
