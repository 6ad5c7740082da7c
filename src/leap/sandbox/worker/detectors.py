"""Run-time detectors for the candidate's child process (called by the child harness, `child.py`).

Import this module in the harness BEFORE candidate code is imported: it captures, at import, the
identities of the timers, comparison/IO functions, torch entry points and global flags, so a later
monkey-patch shows up in `integrity_problems()`. Everything the detectors themselves call is bound
here at import too.

* `guarded_call(model, inputs, device)` runs one forward and checks: the output's exact type and
  storage (a plain dense tensor, not a subclass, not an alias of an input or of another output, no
  stride-0 expand or overlapping strides), a host copy of the output (or, over 64 MiB, of 64 random 1 MiB
  chunks of it) right after return vs after a full device synchronize (work still running on a side stream after return), no new Python threads alive
  and no child processes left after the call.
* `InputRotation` feeds each trial's values through the SAME input buffers, so results cached by data
  pointer, ``id()`` or shape are stale on the next trial.
* `follows_new_values(...)`, after timing: another trial's values in the timed call's buffers must give that
  trial's output again (a forward that went stale during timing fails).

Problems are specific strings for `Verdict.detail`; the policy only ever sees generic words
(`GENERIC_FEEDBACK`).
"""

from __future__ import annotations

import builtins
import json
import os
import random
import sys
import threading
import time

import torch
import torch._dynamo  # noqa: F401 - its import re-wraps torch.manual_seed; do it before the baseline is taken
import torch.profiler  # noqa: F401 - imported lazily by the judge's GPU checks; same reason

GENERIC_FEEDBACK = ("The solution was rejected by the sandbox's run-time checks: forward must return fresh, "
                    "dense tensors computed synchronously by its own kernels on the current stream, and "
                    "must not change library or harness state.")

_Tensor = torch.Tensor
_storage = torch._C.TensorBase.untyped_storage  # the original: `host_reads` notes the wrapped one
_Parameter = torch.nn.Parameter
_instance_dict = torch.Tensor.__dict__["__dict__"].__get__  # a tensor's own attributes, whatever it shadows
_type_name = type.__dict__["__name__"].__get__
_PLAIN = (int, float, bool, complex, str, type(None))
_enumerate_threads = threading.enumerate
_listdir = os.listdir
_getpid = os.getpid
_isinstance = builtins.isinstance
_type = builtins.type
_id = builtins.id
_cuda_sync = torch.cuda.synchronize
_uint8 = torch.uint8
_equal = torch.equal
_cat = torch.cat
_random = random.Random
_randbits = random.SystemRandom().getrandbits
_settrace = sys.settrace
_gettrace = sys.gettrace
_setprofile = sys.setprofile
_getprofile = sys.getprofile

_FLAG_GETTERS = {
    "torch.backends.cuda.matmul.allow_tf32": lambda: torch.backends.cuda.matmul.allow_tf32,
    "torch.backends.cudnn.allow_tf32": lambda: torch.backends.cudnn.allow_tf32,
    "torch.backends.cudnn.benchmark": lambda: torch.backends.cudnn.benchmark,
    "torch.backends.cudnn.deterministic": lambda: torch.backends.cudnn.deterministic,
    "torch.get_float32_matmul_precision": torch.get_float32_matmul_precision,
    "torch.are_deterministic_algorithms_enabled": torch.are_deterministic_algorithms_enabled,
    "torch.get_num_threads": torch.get_num_threads,
    "torch.get_default_dtype": torch.get_default_dtype,
}


def _callables(namespace, prefix: str) -> dict[str, int]:
    out = {}
    for name in dir(namespace):
        if name.startswith("__") and name not in ("__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
                                                  "__add__", "__mul__", "__sub__", "__truediv__", "__matmul__",
                                                  "__getitem__", "__setitem__", "__bool__", "__float__"):
            continue
        try:
            obj = getattr(namespace, name)
        except Exception:  # noqa: BLE001 - some lazy attributes raise on access
            continue
        if callable(obj):
            out[f"{prefix}.{name}"] = _id(getattr(obj, "__func__", obj))  # bound classmethods are fresh
    return out


def _capture() -> dict[str, object]:
    snap: dict[str, object] = {}
    snap.update(_callables(time, "time"))
    snap.update(_callables(torch, "torch"))
    snap.update(_callables(torch.Tensor, "torch.Tensor"))
    snap.update(_callables(torch.nn.functional, "torch.nn.functional"))
    snap.update(_callables(torch.cuda, "torch.cuda"))
    snap.update(_callables(torch.cuda.Event, "torch.cuda.Event"))
    snap.update(_callables(torch.testing, "torch.testing"))
    snap.update(_callables(json, "json"))
    snap.update(_callables(builtins, "builtins"))
    snap.update(_callables(os, "os"))
    for name, get in _FLAG_GETTERS.items():
        try:
            snap[f"flag:{name}"] = get()
        except Exception:  # noqa: BLE001 - a flag this build lacks
            pass
    return snap


_BASELINE = _capture()
_BASELINE = {k: v for k, v in _capture().items() if _BASELINE.get(k) == v}  # drop unstable entries
_HARNESS: dict[str, int] = {}


def register_harness(*modules) -> None:
    """Remember the harness modules' own functions (call at harness import, before the candidate)."""
    for m in modules:
        _HARNESS.update(_callables(m, getattr(m, "__name__", "harness")))


def accept_harness_wrappers() -> None:
    """Take what the harness itself rebound after import (the backstop's read-out wrappers, installed per job
    before the candidate) into the baseline: from here on, a change to them is the candidate's."""
    for k, v in _capture().items():
        if k in _BASELINE and _BASELINE[k] != v:
            _BASELINE[k] = v


def integrity_problems() -> list[str]:
    """Names of captured functions, methods or global flags that changed since harness import."""
    now = _capture()
    changed = [k for k, v in _BASELINE.items() if k in now and now[k] != v]
    missing = [k for k in _BASELINE if k not in now and not k.startswith("flag:")]
    harness_now: dict[str, int] = {}
    for mod_name in {k.rsplit(".", 1)[0] for k in _HARNESS}:
        mod = sys.modules.get(mod_name)
        if mod is not None:
            harness_now.update(_callables(mod, mod_name))
    changed += [k for k, v in _HARNESS.items() if harness_now.get(k, v) != v]
    out = [f"monkey-patched: {k}" for k in sorted(changed)[:20]]
    out += [f"deleted: {k}" for k in sorted(missing)[:5]]
    return out


# --- threads and processes ----------------------------------------------------------------------
def python_threads() -> set[int]:
    return {t.ident for t in _enumerate_threads() if t.is_alive() and t.ident is not None}


def child_processes() -> list[int]:
    """Live child processes of this process (all its threads), from /proc."""
    pids: list[int] = []
    base = "/proc/self/task"
    try:
        tids = _listdir(base)
    except OSError:
        return pids
    for tid in tids:
        try:
            with open(f"{base}/{tid}/children") as f:
                pids += [int(p) for p in f.read().split()]
        except OSError:
            continue
    return pids


# --- outputs ---------------------------------------------------------------------------------------
def plain_output(out, inputs) -> tuple[object, list[str]]:
    """What forward returned, vetted before the harness touches it: exact tensors with no attributes of their
    own (``t.detach = partial(torch.relu, buf)`` shadows the method the harness calls once the backstop is
    off), in exact lists and tuples, or plain scalars. Anything else is a problem and the output becomes
    None, so no candidate code runs in the harness's calls; input tensors lose attributes set on them."""
    problems = plain_inputs(inputs)
    bad: list[str] = []
    _vet(out, "output", bad)
    return (None if bad else out), problems + bad


def plain_inputs(inputs) -> list[str]:
    """Input tensors (the harness's own) stripped of attributes candidate code set on them."""
    bad: list[str] = []
    for i, x in enumerate(inputs):
        if _type(x) in (_Tensor, _Parameter):
            _vet(x, f"input {i}", bad)
    return bad


def _vet(obj, path: str, bad: list[str]) -> None:
    kind = _type(obj)
    if kind in (list, tuple):
        for i, o in enumerate(obj):
            _vet(o, f"{path}[{i}]", bad)
    elif kind in (_Tensor, _Parameter):
        own = _instance_dict(obj)
        if own:
            names = sorted(k for k in own if _type(k) is str)[:4]
            bad.append(f"{path}: a tensor with attributes of its own ({', '.join(names) or 'non-string keys'}: "
                       "they shadow its methods)")
            own.clear()
    elif _isinstance(obj, _Tensor):
        bad.append(f"{path}: tensor subclass {_type_name(kind)}")
    elif kind not in _PLAIN:
        bad.append(f"{path}: a {_type_name(kind)} (forward returns tensors, lists or tuples of them, or numbers)")


def _tensors(obj, path: str = "output") -> list[tuple[str, object]]:
    if _isinstance(obj, list | tuple):
        out = []
        for i, o in enumerate(obj):
            out += _tensors(o, f"{path}[{i}]")
        return out
    return [(path, obj)]


def _overlapping(t: torch.Tensor) -> bool:
    dims = sorted((st, sz) for st, sz in zip(t.stride(), t.shape, strict=True) if sz > 1)
    span = 1
    for st, sz in dims:
        if st < span:
            return True
        span = st * sz
    return False


def _byte_range(t: torch.Tensor) -> tuple[int, int, str]:
    st = _storage(t)
    return st.data_ptr(), st.data_ptr() + st.nbytes(), str(t.device)


def check_output(out, inputs) -> list[str]:
    """Exact type and storage checks on what forward returned (not values: the judge compares those)."""
    problems: list[str] = []
    seen: list[tuple[str, tuple[int, int, str]]] = []
    in_ranges = [_byte_range(x) for x in inputs if _type(x) is _Tensor or _isinstance(x, _Tensor)]
    for path, t in _tensors(out):
        if not _isinstance(t, _Tensor):
            continue  # a non-tensor output is a type mismatch the comparator reports
        if _type(t) not in (_Tensor, _Parameter):
            problems.append(f"{path}: tensor subclass {_type(t).__name__}")
            continue
        if t.layout != torch.strided or t.device.type == "meta":
            problems.append(f"{path}: layout {t.layout} on {t.device}")
            continue
        if t.numel() > 1 and any(st == 0 and sz > 1 for st, sz in zip(t.stride(), t.shape, strict=True)):
            problems.append(f"{path}: stride-0 (expanded) output, shape {tuple(t.shape)} stride {t.stride()}")
        elif t.numel() > 1 and _overlapping(t):
            problems.append(f"{path}: overlapping strides {t.stride()} for shape {tuple(t.shape)}")
        if t.numel() == 0:
            continue
        lo, hi, dev = _byte_range(t)
        for ilo, ihi, idev in in_ranges:
            if dev == idev and lo < ihi and ilo < hi:
                problems.append(f"{path}: shares memory with an input")
                break
        for other, (olo, ohi, odev) in seen:
            if dev == odev and lo < ohi and olo < hi:
                problems.append(f"{path}: shares memory with {other}")
        seen.append((path, (lo, hi, dev)))
    return problems


def secret_seed() -> int:
    """A seed the candidate cannot know (positions of samples, counts of extra calls)."""
    return _randbits(62)


SNAPSHOT_FULL_BYTES = 64 << 20  # an output up to this size is copied whole
SNAPSHOT_CHUNK = 1 << 20         # a larger one in chunks of this size: its first, its last and random ones
SNAPSHOT_CHUNKS = 64


def snapshot(out, seed: int = 0) -> list:
    """Host copies of every output tensor's bytes, taken on the current stream. The copy engine reads the
    memory while other streams' kernels still run, so work left running after forward returned shows
    as a difference from a snapshot taken after a full synchronize. (A digest computed by GPU kernels
    does not: they queue behind the side stream's kernels for the SMs and see the finished output.)
    An output over `SNAPSHOT_FULL_BYTES` is copied in `SNAPSHOT_CHUNKS` chunks at positions drawn from
    ``seed`` (the same for both snapshots of a call, unknown to the candidate): a whole copy of a level-1
    KernelBench output (8 GiB) twice per call ran the child's host out of memory."""
    snap = []
    for path, t in _tensors(out):
        if _isinstance(t, _Tensor):
            snap.append((path, _host_sample(t.detach().contiguous().view(-1).view(_uint8), seed, SNAPSHOT_FULL_BYTES,
                                            SNAPSHOT_CHUNK, SNAPSHOT_CHUNKS, _to_host) if t.numel() else None))
        else:
            snap.append((path, repr(_type(t))))
    return snap


def _host_sample(flat, seed: int, whole: int, chunk: int, count: int, to_host):
    """``to_host`` of a flat tensor of up to ``whole`` elements, else of ``count`` chunks of ``chunk`` elements
    concatenated on the host: the first, the last and others at positions drawn from ``seed``."""
    n = flat.numel()
    if n <= whole:
        return to_host(flat)
    last = (n - 1) // chunk
    picks = _random(seed).sample(range(1, last), min(count - 2, max(0, last - 1)))
    return _cat([to_host(flat[i * chunk:(i + 1) * chunk]) for i in [0, *sorted(picks), last]])


def _to_host(t):
    return t.cpu()


def _to_host_float(t):
    return t.float().cpu()


def same_snapshot(a: list, b: list) -> bool:
    """Byte-for-byte equal snapshots (a memory compare, no hashing)."""
    if len(a) != len(b):
        return False
    for (pa, xa), (pb, xb) in zip(a, b, strict=True):
        if pa != pb:
            return False
        if _isinstance(xa, _Tensor) and _isinstance(xb, _Tensor):
            if xa.shape != xb.shape or not _equal(xa, xb):
                return False
        elif _isinstance(xa, _Tensor) or _isinstance(xb, _Tensor) or xa != xb:
            return False
    return True


class InitWatch:
    """A trace function for one forward: notes every start of a candidate function the static gate analysed as
    init code (``code``: its first line and qualified name, in the candidate's ``filename``; a lambda on the
    same line is another function). Python calls methods by name (``print(file=obj)`` runs ``write``), and
    ``type(obj)()`` or a stored callback run code no name in forward leads to: what starts there computes
    unchecked, so it is refused wherever it came from."""

    def __init__(self, filename: str, code):
        self.filename, self.code, self.hits = filename, frozenset((int(a), str(b)) for a, b in code), []
        self.lines = frozenset(a for a, _ in self.code)

    def __call__(self, frame, event, arg):
        code = frame.f_code
        if (event == "call" and code.co_firstlineno in self.lines and code.co_filename == self.filename
                and (code.co_firstlineno, code.co_qualname) in self.code):
            self.hits.append(f"{code.co_qualname} (line {code.co_firstlineno})")
        return None  # no per-line tracing


def _watched(model, inputs, watch: InitWatch):
    before = _gettrace()
    _settrace(watch)
    try:
        out = model(*inputs)
        still = _gettrace() is watch
    except Exception:  # noqa: BLE001 - init code that ran and then failed is still init code that ran
        if not watch.hits:
            raise
        out, still = None, True
    finally:
        _settrace(before)
    problems = [] if still else ["the trace function was changed during forward"]
    if watch.hits:
        hits = sorted(set(watch.hits))
        watch.hits = []
        problems.append("code the static gate analysed as init code ran during forward: " + ", ".join(hits[:5]))
    return out, problems


def dropped_hooks(profile: bool = False) -> list[str]:
    """Remove a trace function (with ``profile``, also a profile function) the solution installed, and report it:
    it would run inside the harness after the run-time backstop is off (red-team round 27 computed the answer
    there). ``profile`` only where no backstop is armed (the armed backstop profiles forward itself)."""
    if _gettrace() is None and not (profile and _getprofile() is not None):
        return []
    _settrace(None)
    if profile:
        _setprofile(None)
    return ["the solution installed a trace or profile function (sys.settrace / sys.setprofile), which would run "
            "inside the judge"]


def guarded_call(model, inputs, device: str = "cpu", fingerprints: bool = True, watch: InitWatch | None = None):
    """Run ``model(*inputs)`` under the run-time checks. Returns ``(out, problems)``. A trace function installed
    before forward (at import, in ``__init__``, in an earlier forward) or during it is removed (`dropped_hooks`)."""
    threads = python_threads()
    hooked = dropped_hooks()
    if watch is not None:
        out, traced = _watched(model, inputs, watch)
    else:
        out, traced = model(*inputs), []
    after = dropped_hooks()  # one set during forward is removed too
    traced = [*traced, *(hooked or after)]
    out, odd = plain_output(out, inputs)
    if odd:
        return None, traced + odd + leftovers(threads, "forward")
    seed = secret_seed()
    early = snapshot(out, seed) if fingerprints and device == "cuda" else None
    if device == "cuda":
        _cuda_sync()
    problems = check_output(out, inputs)
    if early is not None and not same_snapshot(early, snapshot(out, seed)):
        problems.append("output changed after forward returned (work left running on another stream)")
    return out, traced + problems + leftovers(threads, "forward")


def leftovers(threads: set[int], after: str) -> list[str]:
    """Python threads started since ``threads`` (a `python_threads()` taken before) and child processes
    still alive, as problems (``after`` names what the candidate ran)."""
    problems = []
    new = python_threads() - threads
    if new:
        problems.append(f"{len(new)} new Python thread(s) still running after {after}")
    kids = child_processes()
    if kids:
        problems.append(f"child process(es) alive after {after}: {kids[:5]}")
    return problems


# --- rotation and spot checks ----------------------------------------------------------------------
class InputRotation:
    """Feed every trial through the same input buffers (same data pointers, fresh values)."""

    def __init__(self) -> None:
        self.buffers: list | None = None

    def bind(self, inputs: list) -> list:
        if self.buffers is None or len(self.buffers) != len(inputs) or not all(
                self._fits(b, x) for b, x in zip(self.buffers, inputs, strict=True)):
            self.buffers = list(inputs)
            return self.buffers
        for b, x in zip(self.buffers, inputs, strict=True):
            if _isinstance(b, _Tensor):
                with torch.no_grad():
                    b.copy_(x)
        return self.buffers

    @staticmethod
    def _fits(b, x) -> bool:
        if _isinstance(b, _Tensor) and _isinstance(x, _Tensor):
            return (b.shape == x.shape and b.dtype == x.dtype and b.device == x.device
                    and b.stride() == x.stride())
        return not _isinstance(b, _Tensor) and not _isinstance(x, _Tensor) and b == x


SAMPLE_FULL = 1 << 22   # an output up to this many elements is compared whole
SAMPLE_CHUNK = 1 << 16  # a larger one on 32 chunks of this many elements at secret positions


def value_sample(out, seed: int) -> list:
    """Host float copies of every output tensor's values (or of 32 chunks of a large one: its first, its last
    and others at positions drawn from ``seed``), for a comparison with tolerance (`close_samples`)."""
    return [_host_sample(t.detach().reshape(-1), seed, SAMPLE_FULL, SAMPLE_CHUNK, 32, _to_host_float)
            if _isinstance(t, _Tensor) else None for _, t in _tensors(out)]


def close_samples(a: list, b: list) -> bool:
    """Loosely equal (1% of the larger magnitude): a stale output for other input values is far off, the
    reordered sums of a nondeterministic kernel are not."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b, strict=True):
        if x is None or y is None:
            if x is not y:
                return False
            continue
        if x.shape != y.shape:
            return False
        scale = float(y.abs().nan_to_num(0.0, 0.0, 0.0).max()) if y.numel() else 0.0
        if not torch.allclose(x, y, rtol=1e-2, atol=1e-2 * scale + 1e-6, equal_nan=True):
            return False
    return True


def follows_new_values(model, buffers: list, values: list, expected: list, seed: int, device: str) -> bool | None:
    """After timing: copy another trial's input ``values`` into the timed call's input ``buffers`` and, after a
    secret number of plain calls, check the output against that trial's own earlier output (``expected``,
    a `value_sample`). A forward that counts calls or caches by pointer, shape or identity and went stale
    during timing fails; None when the buffers cannot take the values (other shapes: not checked)."""
    for b, v in zip(buffers, values, strict=False):
        if _isinstance(b, _Tensor) != _isinstance(v, _Tensor) or (
                _isinstance(b, _Tensor) and (b.shape != v.shape or b.dtype != v.dtype)) or (
                not _isinstance(b, _Tensor) and b != v):  # other scalars: other outputs, nothing to compare
            return None
    if len(buffers) != len(values):
        return None
    with torch.no_grad():
        for b, v in zip(buffers, values, strict=True):
            if _isinstance(b, _Tensor):
                b.copy_(v)
        for _ in range(_random(seed).randrange(4)):
            model(*buffers)
        out = model(*buffers)
        if device == "cuda":
            _cuda_sync()
    return close_samples(value_sample(out, seed), expected)
