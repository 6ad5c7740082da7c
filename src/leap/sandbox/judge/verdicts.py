"""Every verdict the judge gives is built here: one constructor per status, with what the status implies
(``ok``: correct and compiled; ``incorrect``: it compiled and ran; the rest: not compiled unless the call
says so). ``base`` is what is known of the candidate so far (task, device, backend, strict gate verdict).
The decisions themselves are `leap.sandbox.judge.verifier`'s (child outcomes, outputs, timing) and the
scheduler's (gate, backend, devices); nothing else constructs a `Verdict`."""

from __future__ import annotations

from leap.sandbox.judge.verdict import Verdict


def _make(status: str, base: dict, defaults: dict, fields: dict) -> Verdict:
    return Verdict(status=status, **base, **{**defaults, **fields})


def ok(base: dict, **fields) -> Verdict:
    return _make("ok", base, {"correct": True, "compiled": True}, fields)


def format_error(base: dict, **fields) -> Verdict:
    return _make("format_error", base, {}, fields)


def rejected(base: dict, **fields) -> Verdict:
    return _make("rejected", base, {}, fields)


def gate_refusal(base: dict, status: str, **fields) -> Verdict:
    """The static gate's refusal: ``format_error`` (no usable code) or ``rejected``."""
    return format_error(base, **fields) if status == "format_error" else rejected(base, **fields)


def compile_error(base: dict, **fields) -> Verdict:
    return _make("compile_error", base, {"compiled": False}, fields)


def runtime_error(base: dict, **fields) -> Verdict:
    return _make("runtime_error", base, {}, fields)


def timeout(base: dict, **fields) -> Verdict:
    return _make("timeout", base, {}, fields)


def incorrect(base: dict, **fields) -> Verdict:
    return _make("incorrect", base, {"compiled": True}, fields)


def needs_gpu(base: dict, **fields) -> Verdict:
    """This machine cannot judge the candidate (no GPU): says nothing about it."""
    return _make("needs_gpu", base, {}, fields)


def sandbox_error(base: dict, **fields) -> Verdict:
    """The judge failed, not the candidate: trainers and evaluations do not count it against it."""
    return _make("sandbox_error", base, {}, fields)
