"""The judge-process calls the runtime makes into the judge's modules (backends, static gate, task
module, inputs, compare, feedback), in the shapes the verifier and scheduler use.

Everything here runs in the judge (parent) process, never in a candidate's process.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from leap.sandbox.gate.backends import detect_backend
from leap.sandbox.gate.static_gate import check_source
from leap.sandbox.judge import feedback, inputs, task_module
from leap.sandbox.judge.compare import CompareResult as Compared
from leap.sandbox.judge.compare import bit_identical, compare_outputs, is_degenerate
from leap.sandbox.judge.inputs import Trial
from leap.sandbox.judge.task_module import load_task_module

__all__ = ["Compared", "Gate", "Trial", "bit_identical", "build_reference", "compare_outputs", "detect_backend",
           "flat", "gate", "init_inputs", "is_degenerate", "load_task_module", "make_trials",
           "mismatch_feedback", "speed_feedback", "trim_compiler_error"]


@dataclass(frozen=True)
class Gate:
    """The gate's outcome as the runtime uses it: ``rule``/``line``/``col`` locate the first finding;
    ``strict`` is LEAP's strict verdict under rules "kernelbench" (else ""); ``init_code`` what the child's
    init watch looks for."""

    ok: bool
    status: str = "ok"
    reason: str = ""
    detail: str = ""
    rule: str = ""
    line: int | None = None
    col: int | None = None
    strict: str = ""
    init_code: tuple[tuple[int, str], ...] = ()
    launched: tuple[str, ...] = ()  # the backends whose kernels forward's data path launches (full gate only)


def gate(source: str, backend: str | None, allowed_ops, full: bool = True, rules: str = "leap") -> Gate:
    """The static gate under ``rules`` ("leap" | "kernelbench"); with ``full=False``
    (``SandboxConfig.static_gate`` off) only the format checks: valid Python that defines ``class ModelNew``."""
    if full:
        g = check_source(source, backend, allowed_ops=list(allowed_ops), rules=rules)
        return Gate(bool(g.ok), g.status, g.reason, g.detail, g.rule, g.line, g.col, g.strict, g.init_code,
                    tuple(g.backends))
    if not source.strip():
        return Gate(False, "format_error", "No code found: the answer must contain a Python solution.")
    try:
        tree = ast.parse(source)
    except SyntaxError as exc:
        col = max((exc.offset or 1) - 1, 0)
        text = feedback.gate_feedback("The solution is not valid Python.", "syntax", exc.lineno or 0, col,
                                      f"syntax error: {exc.msg}", source)
        return Gate(False, "format_error", text, "syntax", "syntax", exc.lineno, col)
    except (ValueError, RecursionError, MemoryError) as exc:
        return Gate(False, "format_error", f"The solution is not valid Python: {type(exc).__name__} {exc}", "syntax")
    if not any(isinstance(n, ast.ClassDef) and n.name == "ModelNew" for n in tree.body):
        return Gate(False, "format_error", "The solution must define class ModelNew(nn.Module).", "no_modelnew")
    return Gate(True)


def init_inputs(module: types.ModuleType, seed: int) -> list:
    return list(task_module.init_inputs(module, seed))


def build_reference(module: types.ModuleType, init_inputs: list, seed: int, device: str):
    return task_module.build_model(module, init_inputs, seed, device)


def make_trials(task, module: types.ModuleType, *, n_trials: int, seed: int, small: bool,
                device: str = "cpu", first: int = 0) -> list[Trial]:
    return list(inputs.make_trials(task, module, n_trials=n_trials, seed=seed, small=small, device=device,
                                   first=first))


def flat(obj) -> list:
    """The leaves of nested lists/tuples of outputs."""
    if isinstance(obj, list | tuple):
        return [y for x in obj for y in flat(x)]
    return [obj]


def trim_compiler_error(text: str, limit: int = 1500) -> str:
    return feedback.trim_compiler_error(text, limit=limit)


def mismatch_feedback(cmp: Compared, trial_index: int, variant: str, n_trials: int) -> str:
    return feedback.mismatch_feedback(cmp, trial_index, variant, n_trials)


def speed_feedback(runtime_us, eager_us, compile_us, n_trials: int) -> str | None:
    return feedback.speed_feedback(runtime_us, eager_us, compile_us, n_trials)
