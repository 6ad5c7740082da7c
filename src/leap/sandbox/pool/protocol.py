"""What crosses the judge -> worker boundary: the `Job` a candidate's child runs, a frozen typed record.

It travels as JSON over the child's pipe (`Job.to_wire` / `Job.from_wire`; pickles as well). A wire job
with an unknown key, a missing ``type`` or a malformed nested record is refused (`ProtocolError`), never
guessed at. Frozen all the way down (nested mappings are `FrozenDict`, lists are tuples), so nothing
the candidate reaches through frames can change what the harness was told (the child copies its
settings out before the candidate runs all the same). Standard library only: the
forkserver preloads it with the child.
"""

from __future__ import annotations

import dataclasses
import re
import types
from dataclasses import dataclass, field, fields
from typing import Any


class ProtocolError(ValueError):
    """A malformed job: the judge's bug, reported as a harness failure."""


class FrozenDict(dict):
    """A read-only dict (pickles; ``isinstance(x, dict)`` holds for the validators that read it)."""

    def _read_only(self, *args, **kwargs):
        raise TypeError("a job's records are read-only")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _read_only

    def __reduce__(self):
        return (FrozenDict, (dict(self),))


def freeze(obj: Any) -> Any:
    """Read-only copy of JSON-like data: dicts as `FrozenDict`, lists as tuples."""
    if isinstance(obj, dict | types.MappingProxyType):
        return FrozenDict({k: freeze(v) for k, v in obj.items()})
    if isinstance(obj, list | tuple):
        return tuple(freeze(v) for v in obj)
    return obj


def thaw(obj: Any) -> Any:
    """Plain (mutable, JSON-able) copy of frozen data."""
    if isinstance(obj, dict | types.MappingProxyType):
        return {k: thaw(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [thaw(v) for v in obj]
    return obj


@dataclass(frozen=True)
class Limits:
    """Resource limits of the child's isolation layer."""

    memory_bytes: int | None = None
    drop_uid: int | None = None
    network: bool | None = None
    cpu_seconds: int | None = None  # RLIMIT_CPU: a bound on a candidate nothing is left to kill


@dataclass(frozen=True)
class TimingSettings:
    """GPU timing of the candidate's forward (`leap.sandbox.worker.timing`)."""

    warmup: int
    samples: int
    flush_l2: bool
    kernel_fraction: bool
    source: str
    host_tolerance: float
    host_slack_us: float


@dataclass(frozen=True)
class TrialInput:
    """One trial's inputs: a ``torch.save`` file in the child's private dir, or CUDA IPC records."""

    name: str
    inputs: str | None = None
    ipc_inputs: tuple | None = None  # frozen items: {"t": <IPC record>} or {"v": <scalar>}

    def ipc_items(self) -> list[dict] | None:
        """Fresh plain copies of the IPC items (the IPC layer validates plain dicts and lists)."""
        return None if self.ipc_inputs is None else thaw(self.ipc_inputs)


@dataclass(frozen=True)
class Job:
    """One job for a single-use child: ``compile`` (build a cuda_inline extension), ``check`` (trials,
    then GPU timing) or ``ipc_probe`` (the judge checks that CUDA IPC works through the isolation)."""

    type: str
    device: str = "cpu"
    backend: str | None = None
    source: str = ""
    gpu_visible: str | None = None
    isolation: bool = True
    limits: Limits = field(default_factory=Limits)
    keep_paths: tuple[str, ...] = ()
    ext_cache: str = ""
    arch_list: str = ""
    max_jobs: int = 0
    init_seed: int = 0
    poison_rechecks: int = 1
    poison_bytes: int = 0
    child_checks: bool = True
    fingerprint_trials: int = 1
    timing: TimingSettings | None = None
    compile_pass: bool = False
    rules: str = "leap"
    compute_guard: bool = False
    allowed_ops: tuple[str, ...] = ()
    # the reference's allowed library calls in one forward, as `compute_guard.library_signature`s (`judge/op_count`)
    library_calls: tuple[tuple, ...] | None = None
    guard_nonce: int = 1
    record: Any = None  # ipc_probe: the frozen IPC record of the probe tensor
    transport: str = "files"
    init_file: str = ""
    trials: tuple[TrialInput, ...] = ()
    init_code: tuple[tuple[int, str], ...] = ()  # (first line, qualname): what the gate took for init code

    def __post_init__(self):
        if self.type not in ("check", "compile", "ipc_probe"):
            raise ProtocolError(f"unknown job type {self.type!r}")

    def with_fields(self, **changes) -> Job:
        """A copy with some fields replaced (wire-shaped values accepted: e.g. ``trials`` as dicts)."""
        return Job.from_wire({**self.to_wire(), **changes})

    def to_wire(self) -> dict:
        """The JSON-able dict sent to the child."""
        out = {}
        for f in fields(self):
            v = getattr(self, f.name)
            if dataclasses.is_dataclass(v):
                v = dataclasses.asdict(v)
            elif f.name == "trials":
                v = [{k: thaw(x) for k, x in dataclasses.asdict(t).items() if x is not None} for t in v]
            out[f.name] = thaw(v)
        return out

    @classmethod
    def from_wire(cls, data: Any) -> Job:
        """Parse a wire job; refuse unknown keys and values of the wrong shape."""
        if not isinstance(data, dict | types.MappingProxyType):
            raise ProtocolError(f"a job is a JSON object (got {type(data).__name__})")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ProtocolError(f"unknown job fields: {', '.join(unknown)}")
        if "type" not in data:
            raise ProtocolError("a job needs a type")
        kw = dict(data)
        try:
            if kw.get("limits") is not None:
                kw["limits"] = Limits(**kw["limits"])
            else:
                kw.pop("limits", None)
            if kw.get("timing") is not None:
                kw["timing"] = TimingSettings(**kw["timing"])
            kw["trials"] = tuple(TrialInput(name=str(t["name"]), inputs=t.get("inputs"),
                                            ipc_inputs=freeze(t["ipc_inputs"]) if t.get("ipc_inputs") is not None
                                            else None) for t in kw.get("trials") or ())
        except (TypeError, KeyError, AttributeError) as exc:
            raise ProtocolError(f"malformed job: {type(exc).__name__}: {exc}") from None
        for name in ("keep_paths", "allowed_ops"):
            if name in kw:
                kw[name] = tuple(str(x) for x in kw[name] or ())
        try:
            if kw.get("library_calls") is not None:
                kw["library_calls"] = tuple(tuple(x if isinstance(x, str) else int(x) for x in sig)
                                            for sig in kw["library_calls"])
            kw["init_code"] = tuple((int(line), str(name)) for line, name in kw.get("init_code") or ())
        except (TypeError, ValueError) as exc:
            raise ProtocolError(f"malformed job: init_code or library_calls: {exc}") from None
        if "record" in kw:
            kw["record"] = freeze(kw["record"])
        for name in ("backend", "gpu_visible", "ext_cache", "arch_list", "rules", "init_file", "transport"):
            if kw.get(name) is None and name not in ("backend", "gpu_visible"):
                kw.pop(name, None)
        return cls(**kw)


# --- the child's answer ------------------------------------------------------------------------------
_REF = (str, dict)  # an output: a file path in the private dir, or {"ipc_key": key}
_RESULT_FIELDS: dict[str, tuple[type, ...]] = {
    "type": (str,), "ok": (bool,), "stage": (str,), "stages": (dict,), "error": (dict,), "problems": (list,),
    "trials": (list,), "timing": (dict,), "builds": (list,), "isolation": (dict,), "compute": (bool,),
    "parent_lost": (bool,)}
_TRIAL_FIELDS: dict[str, tuple[type, ...]] = {
    "name": (str,), "out": _REF, "out_b": _REF, "inputs_after": _REF, "devices": (list,),
    "inputs_unchanged": (bool,), "poison_identical": (bool,), "nondeterministic": (bool,),
    "reordered": (bool,)}


def result_problem(msg: dict) -> str | None:
    """Why a child's ``result`` message is malformed (field types the judge relies on), or None. Unknown
    fields are left alone; a malformed answer after candidate code ran is the candidate's doing."""
    def typed(rec: dict, fields: dict, where: str) -> str | None:
        for k, kinds in fields.items():
            if k in rec and rec[k] is not None and not isinstance(rec[k], kinds):
                return f"{where}{k}: {type(rec[k]).__name__}"
        return None

    if not isinstance(msg.get("ok"), bool):
        return "ok: missing or not a bool"
    why = typed(msg, _RESULT_FIELDS, "")
    if why:
        return why
    if any(not isinstance(x, int | float) for x in (msg.get("stages") or {}).values()):
        return "stages: a value is not a number"
    if any(not isinstance(x, str) for x in (msg.get("error") or {}).values()):
        return "error: a value is not text"
    for i, rec in enumerate(msg.get("trials") or []):
        if not isinstance(rec, dict):
            return f"trials[{i}]: not a record"
        why = typed(rec, _TRIAL_FIELDS, f"trials[{i}].")
        if why:
            return why
        for k in ("out", "out_b", "inputs_after"):
            if isinstance(rec.get(k), dict) and not isinstance(rec[k].get("ipc_key"), str):
                return f"trials[{i}].{k}: not an IPC reference"
    return None


_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
TEXT_CAP = 20_000  # characters of one string from the child
KIND_CAP = 200     # an exception's class name


def clean_text(value, cap: int = TEXT_CAP):
    """Every string in a child's message made safe to keep, print and serialise: lone surrogates (which a
    candidate's exception text can carry through JSON and which then fail every UTF-8 writer) replaced,
    control characters but newline and tab (terminal escapes) dropped, each string capped at ``cap``."""
    if isinstance(value, str):
        text = _CONTROL.sub("", value.encode("utf-8", "replace").decode("utf-8"))
        return text if len(text) <= cap else text[:cap] + f"... [{len(text) - cap} characters cut]"
    if isinstance(value, dict):
        return {clean_text(k, KIND_CAP): clean_text(v, KIND_CAP if k == "kind" else cap) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_text(v, cap) for v in value]
    return value
