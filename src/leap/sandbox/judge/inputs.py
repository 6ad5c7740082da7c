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

Structured inputs (`infer_invariants`). A task whose point is structured inputs (KernelBench's
upper-triangular ``A, B`` of level1/14, lower-triangular of /15, symmetric ``A`` of /13) says so only in
its ``get_inputs()``; fresh values must keep that structure, or a kernel that exploits it honestly is
judged on inputs the problem never has. So the task's own inputs are drawn under `INFER_SEEDS` (three
fixed seeds, on the trials' device and sizes; the answer is cached per task source, size and device
type) and, per floating tensor input, the invariants every draw shows are kept in every fresh variant:

* a zero pattern — the positions that are exactly zero in every draw, at least `MIN_ZERO_SHARE` of the
  input and not all of it, with no draw having more than `STRAY_ZERO_SHARE` of the input as other zeros
  (``torch.rand`` gives exact zeros now and then): triangular, banded, diagonal, padded. The fresh
  values are set to zero there (the mask is kept on the host, reduced along the dimensions it does not
  vary over; one larger than `MAX_MASK_BYTES` is not kept);
* symmetry in the last two dimensions (square, not constant, equal to its transpose bit for bit in every
  draw): the fresh values ``v`` become ``(v + v^T) / 2`` (before the zero pattern, so both hold);
* non-negativity is recorded (``Invariants.non_negative``) but not imposed: the signed variants of a
  ``torch.rand`` input are deliberate (they check negative values; taking ``abs()`` would let e.g.
  an identity pass as ReLU), as `leap.tasks.validate` notes.

Inputs without such structure are drawn exactly as before (same values for the same seed); a task whose
inputs change shape between draws, or whose ``get_inputs()`` fails, gets no invariants.
"""

from __future__ import annotations

import math
import random
import secrets
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import torch

from leap.sandbox.judge.task_module import (
    RNG_LOCK,
    TaskModuleError,
    get_inputs,
    meta_bytes,
    require_host_room,
    seeded,
)

VARIANTS: tuple[str, ...] = ("task", "randn", "x100", "x1e-3")
INFER_SEEDS: tuple[int, ...] = (0x1F1, 0x2F2, 0x3F3)  # draws of the task's own inputs for `infer_invariants`
MIN_ZERO_SHARE = 1e-3  # a zero pattern covers at least this share of the input
STRAY_ZERO_SHARE = 1e-4  # ... and no draw has more than this share of other exact zeros
MAX_MASK_BYTES = 1 << 28  # a (reduced) zero mask larger than this is not kept
_INVARIANTS: dict[tuple, dict[int, Invariants]] = {}  # (source hash, small, device type) -> invariants
_equal = torch.equal
SCALES: dict[str, float] = {"x100": 100.0, "x1e-3": 1e-3}
MAX_NONFINITE = 0.5  # a reference with more than this share of NaN/Inf is degenerate
SAMPLE = 1 << 20  # is_degenerate estimates the NaN/Inf share on this many elements per tensor
_SAMPLE_INDEX: dict[tuple[int, str], torch.Tensor] = {}  # (numel, device) -> fixed subset positions


@dataclass
class Trial:
    """One correctness trial: the inputs (CPU tensors / objects, in argument order) and its variant."""

    name: str
    inputs: list[Any]
    variant: str = ""
    meta: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Invariants:
    """What every draw of one floating input of a task has (`infer_invariants`): ``zeros``, a bool mask on the
    host, broadcastable to the input's shape, of the positions always zero (None: no such pattern);
    ``symmetric``: equal to its transpose in the last two dimensions; ``non_negative`` (recorded only)."""

    zeros: torch.Tensor | None = None
    symmetric: bool = False
    non_negative: bool = False

    @property
    def kept(self) -> bool:
        """Whether fresh values of this input are changed to keep an invariant."""
        return self.zeros is not None or self.symmetric

    def describe(self) -> str:
        parts = (["zero pattern"] if self.zeros is not None else []) + (["symmetric"] if self.symmetric else [])
        return ", ".join(parts)


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
    from the finite bound), drawn on ``gen``'s device."""
    kw = dict(generator=gen, dtype=torch.float32, device=gen.device)
    half = torch.randn(x.shape, **kw).abs_().add_(1e-3)
    if lo == float("-inf") and hi == float("inf"):
        vals = torch.randn(x.shape, **kw)
    elif hi == float("inf"):
        vals = half.add_(lo)
    elif lo == float("-inf"):
        vals = half.neg_().add_(hi)
    else:
        vals = torch.rand(x.shape, **kw).mul_(hi - lo).add_(lo)
    return vals.to(dtype=x.dtype, device=x.device)


def _keep(z: torch.Tensor, inv: Invariants | None) -> torch.Tensor:
    """Fresh values ``z`` made to keep the input's invariants: symmetrised, then zero on its zero pattern."""
    if inv is None or not inv.kept or z.dim() == 0:
        return z
    if inv.symmetric and z.dim() >= 2 and z.shape[-1] == z.shape[-2]:
        z = (z + z.transpose(-1, -2)) / 2
    if inv.zeros is not None:
        z = z.masked_fill(inv.zeros.to(z.device), 0)
    return z


def vary(x: Any, variant: str, domain: Any, gen: torch.Generator, keep: Invariants | None = None) -> Any:
    """Input ``x`` of the task under ``variant`` (see the module docstring); fresh values come from ``gen``
    (on ``x``'s device) and keep the input's invariants ``keep`` (`infer_invariants`)."""
    if not isinstance(x, torch.Tensor) or not (x.is_floating_point() or x.is_complex()) or variant == "task":
        return x
    bounds = _bounds(domain)
    if bounds is not None:
        return _keep(_in_domain(x, *bounds, gen), keep) if variant == "randn" else x
    real = torch.float32 if not x.is_complex() else torch.complex64
    z = torch.randn(x.shape, generator=gen, dtype=real, device=gen.device)
    if variant in SCALES:
        z.mul_(SCALES[variant])
    z = _keep(z, keep)
    return z.to(dtype=x.dtype, device=x.device).requires_grad_(x.requires_grad)


def _reduced(mask: torch.Tensor) -> torch.Tensor:
    """``mask`` reduced to size 1 along every dimension it does not vary over (it broadcasts back)."""
    for d in range(mask.dim()):
        if mask.shape[d] > 1:
            first = mask.narrow(d, 0, 1)
            if bool(_equal(mask, first.expand_as(mask))):
                mask = first
    return mask


def _symmetric(x: torch.Tensor) -> bool:
    """Square in the last two dimensions, not constant, and equal to its transpose bit for bit."""
    if x.dim() < 2 or x.shape[-1] != x.shape[-2] or x.shape[-1] < 2:
        return False
    if bool((x == x.reshape(-1)[0]).all()):
        return False
    return bool(_equal(x, x.transpose(-1, -2)))


def _infer(module: types.ModuleType, small: bool, dev: torch.device) -> dict[int, Invariants]:
    """Invariants of the task's floating inputs over draws under `INFER_SEEDS` (see the module docstring)."""
    shapes: dict[int, tuple] = {}
    zeros: dict[int, torch.Tensor] = {}  # running intersection of the zero masks (on the device)
    counts: dict[int, list[int]] = {}  # zeros in each draw
    sym: dict[int, bool] = {}
    nonneg: dict[int, bool] = {}
    for n, seed in enumerate(INFER_SEEDS):
        try:
            xs = task_inputs(module, small, seed, dev)
        except TaskModuleError:  # the trial draws report it
            return {}
        if n == 0:
            shapes = {j: (tuple(x.shape), x.dtype) for j, x in enumerate(xs) if isinstance(x, torch.Tensor)
                      and (x.is_floating_point() or x.is_complex()) and x.numel() >= 2 and x.layout == torch.strided}
        for j in list(shapes):
            x = xs[j] if j < len(xs) else None
            if not isinstance(x, torch.Tensor) or (tuple(x.shape), x.dtype) != shapes[j]:
                return {}  # inputs that change between draws: nothing to infer
            x = x.detach()
            z = x == 0
            nz = int(z.sum())
            if n == 0 and MIN_ZERO_SHARE * x.numel() <= nz < x.numel():
                zeros[j], counts[j] = z, [nz]
            elif n and j in zeros:
                zeros[j].logical_and_(z)
                counts[j].append(nz)
            sym[j] = sym.get(j, True) and _symmetric(x)
            nonneg[j] = nonneg.get(j, True) and not x.is_complex() and bool((x >= 0).all())
        del xs
    found: dict[int, Invariants] = {}
    for j, (shape, _) in shapes.items():
        numel = math.prod(shape)
        mask = None
        if j in zeros:
            common = int(zeros[j].sum())
            if (MIN_ZERO_SHARE * numel <= common < numel
                    and all(c - common <= STRAY_ZERO_SHARE * numel for c in counts[j])):
                mask = _reduced(zeros[j])
                mask = mask.cpu() if mask.numel() <= MAX_MASK_BYTES else None
        inv = Invariants(mask, sym[j], nonneg[j])
        if inv.kept or inv.non_negative:
            found[j] = inv
    return found


def infer_invariants(task: Any, module: types.ModuleType, small: bool,
                     device: str | torch.device = "cpu") -> dict[int, Invariants]:
    """Per floating input (by position), the invariants every draw of the task's own inputs shows (see the
    module docstring); cached per (task source hash, ``small``, device type). Torch's global RNGs are
    restored; memory errors propagate (the judge's)."""
    dev = _device(device)
    src_hash = getattr(task, "source_hash", None)
    key = (src_hash, bool(small), dev.type) if isinstance(src_hash, str) else None
    if key is not None and key in _INVARIANTS:
        return _INVARIANTS[key]
    found = _infer(module, small, dev)
    if key is not None:
        if len(_INVARIANTS) >= 64:
            _INVARIANTS.clear()
        _INVARIANTS[key] = found
    return found


def _device(device: str | torch.device) -> torch.device:
    dev = torch.device(device)
    if dev.type == "cuda" and dev.index is None:
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def _moved(xs: list[Any], dev: torch.device) -> list[Any]:
    return [x.to(dev) if isinstance(x, torch.Tensor) and x.device != dev else x for x in xs]


def planned_bytes(module: types.ModuleType, small: bool) -> int | None:
    """The bytes of the task's tensor inputs, planned with `leap.sandbox.judge.task_module.meta_bytes`."""
    return meta_bytes(lambda: get_inputs(module, small))


def check_host_room(module: types.ModuleType, small: bool, copies: int = 1, share: float = 0.5) -> None:
    """`HostRoomError` (the judge's, not the candidate's) when ``copies`` sets of the task's inputs would take
    more than ``share`` of the host's available memory: drawing them would get the judge's process killed by
    the OS (where memory is overcommitted, a 1 TiB ``torch.rand`` succeeds and dies touching its pages)."""
    need = planned_bytes(module, small)
    require_host_room(None if need is None else need * copies, "the task's inputs", share)


def task_inputs(module: types.ModuleType, small: bool, seed: int, device: str | torch.device = "cpu") -> list[Any]:
    """The task's own inputs drawn under ``seed``, on ``device``; torch's global RNGs are restored.

    Off the CPU, ``get_inputs()`` runs under ``with torch.device(device)``, so its factory calls
    (randn, rand, randint, tensor, ...) allocate and draw there (same shapes, dtypes and distributions,
    other values than on the CPU); tensors it makes elsewhere are moved. A task whose inputs cannot be
    made under the device context falls back to drawing on the CPU and moving. Inputs too large for the
    host (`check_host_room`) or the device raise `MemoryError` / ``torch.OutOfMemoryError``. Holds
    `leap.sandbox.judge.task_module.RNG_LOCK` (judge threads seed the global generator one at a time)."""
    dev = _device(device)
    if dev.type == "cpu":
        with seeded(seed):
            return get_inputs(module, small)
    n = torch.cuda.device_count() if dev.type == "cuda" else 0
    with RNG_LOCK, torch.random.fork_rng(devices=list(range(n)), device_type=dev.type):
        torch.manual_seed(seed)
        try:
            with dev:
                return _moved(get_inputs(module, small), dev)
        except TaskModuleError:  # not a memory error: those propagate (the judge's, see `_call`)
            check_host_room(module, small)
            torch.manual_seed(seed)
            return _moved(get_inputs(module, small), dev)


def make_trials(task: Any, module: types.ModuleType, *, n_trials: int = 5, seed: int, small: bool,
                device: str | torch.device = "cpu", first: int = 0) -> list[Trial]:
    """``n_trials`` trials (>= 1) from ``seed``; the variants cycle ``task, randn, x100, x1e-3, task, ...``
    starting at index ``first`` (a later round of a check split into rounds continues the cycle).

    Deterministic given ``seed`` and ``device`` (so tests can replay it); torch's global RNG states are
    restored afterwards. Every tensor is drawn directly on ``device`` (a seeded generator there), so a
    GPU judge never draws large inputs on the host; ``device="cpu"`` gives CPU tensors, after
    `check_host_room` found room for all of them."""
    dev = _device(device)
    if dev.type == "cpu":
        check_host_room(module, small, copies=max(1, n_trials))
    rng = random.Random(seed)
    domains = _domains(task)
    keep = infer_invariants(task, module, small, dev)
    kept = {j: inv.describe() for j, inv in keep.items() if inv.kept}
    trials: list[Trial] = []
    for i in range(first, first + max(1, n_trials)):
        variant = VARIANTS[i % len(VARIANTS)]
        trial_seed = rng.getrandbits(62)
        base = task_inputs(module, small, trial_seed, dev)
        gen = torch.Generator(device=dev).manual_seed(trial_seed ^ 0x5EED)
        inputs = [vary(x, variant, domains.get(j), gen, keep.get(j)) for j, x in enumerate(base)]
        meta = {"index": i, "kept": kept} if kept and variant != "task" else {"index": i}
        trials.append(Trial(name=variant, inputs=inputs, variant=variant, meta=meta))
    return trials


def _flat(obj: Any) -> list[Any]:
    if isinstance(obj, list | tuple):
        return [y for x in obj for y in _flat(x)]
    if isinstance(obj, dict):
        return [y for x in obj.values() for y in _flat(x)]
    return [obj]


def _sample(flat: torch.Tensor) -> torch.Tensor:
    """``flat`` itself when small, else a fixed pseudo-random subset of `SAMPLE` of its elements (the same
    positions for every tensor of that length on that device). The positions are kept on the host: a small
    tensor cached on a GPU would pin the whole allocator segment it was carved from (it held 248 MiB that
    ``torch.cuda.empty_cache()`` could not hand back before the next generation)."""
    n = flat.numel()
    if n <= SAMPLE:
        return flat
    key = (n, str(flat.device))
    idx = _SAMPLE_INDEX.get(key)
    if idx is None:
        gen = torch.Generator(device=flat.device).manual_seed(0x5A3)
        idx = torch.randint(0, n, (SAMPLE,), generator=gen, device=flat.device).sort().values.cpu()  # locality
        if len(_SAMPLE_INDEX) >= 16:
            _SAMPLE_INDEX.clear()
        _SAMPLE_INDEX[key] = idx
    return flat[idx.to(flat.device)]


def _varied(flat: torch.Tensor, finite: torch.Tensor | None) -> bool | None:
    """Whether ``flat``'s finite values take more than one value; ``None`` when it has fewer than two."""
    if finite is None:
        return None if flat.numel() < 2 else not bool((flat == flat[0]).all())
    if int(finite.sum()) < 2:
        return None
    v0 = flat[int(finite.to(torch.uint8).argmax())]  # the first finite value
    return not bool(((flat == v0) | ~finite).all())


def is_degenerate(ref_output: Any) -> bool:
    """True when a reference output cannot tell a right kernel from a wrong one: its tensors are mostly
    NaN/Inf (more than half), or each tensor with several finite values holds one constant.

    Cheap on big outputs: the NaN/Inf share is estimated on a fixed subset of `SAMPLE` elements per
    tensor (exact below that size); "constant" is exact (decided on the subset when it already varies,
    else checked on the whole tensor without copying its finite values)."""
    tensors = [t.detach() for t in _flat(ref_output) if isinstance(t, torch.Tensor) and t.numel() > 0]
    if not tensors:
        return False
    n_total = sum(t.numel() for t in tensors)
    n_bad, n_varied, n_multi = 0.0, 0, 0
    for t in tensors:
        if t.is_complex():
            t = torch.view_as_real(t)
        flat = t.reshape(-1)
        sub = _sample(flat)
        is_float = t.is_floating_point()
        fin_sub = torch.isfinite(sub) if is_float else None
        if fin_sub is not None:
            n_bad += (sub.numel() - int(fin_sub.sum())) * (flat.numel() / sub.numel())
        varied = _varied(sub, fin_sub)
        if not varied and sub.numel() < flat.numel():  # the subset cannot prove it varies: check it all
            varied = _varied(flat, torch.isfinite(flat) if is_float else None)
        if varied is not None:
            n_multi += 1
            n_varied += int(varied)
    if n_bad > MAX_NONFINITE * n_total:
        return True
    return n_multi > 0 and n_varied == 0
