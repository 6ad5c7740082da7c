"""Verdicts are built in one place: inside `leap.sandbox` only `judge/verdicts.py` constructs a `Verdict`,
and each status constructor gives what the status implies."""

from __future__ import annotations

import ast
from pathlib import Path

from leap.sandbox.judge import verdicts

SANDBOX = Path(__file__).resolve().parents[2] / "src" / "leap" / "sandbox"


def test_only_the_verdicts_module_constructs_a_verdict():
    sites = []
    for path in sorted(SANDBOX.rglob("*.py")):
        if path == SANDBOX / "judge" / "verdicts.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Verdict":
                sites.append(f"{path.relative_to(SANDBOX)}:{node.lineno}")
    assert sites == [], f"Verdict(...) built outside judge/verdicts.py: {sites}"


def test_each_status_constructor_sets_what_its_status_implies():
    base = {"task": "relu", "device": "cpu", "backend": "triton"}
    ok = verdicts.ok(base, trials=5, feedback="fine")
    assert (ok.status, ok.correct, ok.compiled, ok.trials, ok.task, ok.backend) == ("ok", True, True, 5, "relu", "triton")
    assert verdicts.incorrect(base, feedback="x").compiled and not verdicts.incorrect(base, feedback="x").correct
    assert not verdicts.compile_error(base, feedback="x").compiled
    assert verdicts.gate_refusal(base, "format_error", feedback="x").status == "format_error"
    assert verdicts.gate_refusal(base, "anything else", feedback="x").status == "rejected"
    assert verdicts.runtime_error(base, compiled=True, feedback="x").compiled  # the call says so
    assert not any(v.correct for v in (verdicts.rejected(base), verdicts.timeout(base), verdicts.needs_gpu(base),
                                       verdicts.sandbox_error(base), verdicts.format_error(base)))
