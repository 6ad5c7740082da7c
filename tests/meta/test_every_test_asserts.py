"""A guard against tests that cannot fail: every test function in the suite contains an assertion, a
``pytest.raises``/``pytest.fail``/``pytest.warns``, a ``*.assert_*`` check, or a call to a helper (defined
anywhere under ``tests/``) that does, transitively."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
CHECK_CALLS = {"raises", "fail", "warns", "deprecated_call"}


def _called_names(fn: ast.AST) -> set[str]:
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            names.add(f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else "")
    return names


def _checks_directly(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            attr = node.func.attr
            if attr in CHECK_CALLS or attr.startswith("assert"):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("assert"):
            return True
    return False


def _functions() -> dict[Path, list[ast.FunctionDef | ast.AsyncFunctionDef]]:
    out = {}
    for path in sorted(TESTS.rglob("*.py")):
        if "corpus" in path.relative_to(TESTS).parts:  # candidate sources, not tests
            continue
        tree = ast.parse(path.read_text(), str(path))
        out[path] = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def unchecked_tests() -> list[str]:
    """``file:line name`` of every test function that checks nothing."""
    fns = _functions()
    calls: dict[str, set[str]] = {}
    checking: set[str] = set()
    for defs in fns.values():
        for fn in defs:
            calls.setdefault(fn.name, set()).update(_called_names(fn))
            if _checks_directly(fn):
                checking.add(fn.name)
    changed = True
    while changed:  # helpers that call checking helpers check too
        changed = False
        for name, called in calls.items():
            if name not in checking and called & checking:
                checking.add(name)
                changed = True
    bad = []
    for path, defs in fns.items():
        if not path.name.startswith("test_"):
            continue
        for fn in defs:
            if fn.name.startswith("test_") and not (_checks_directly(fn) or _called_names(fn) & checking):
                bad.append(f"{path.relative_to(TESTS)}:{fn.lineno} {fn.name}")
    return bad


def test_every_test_function_checks_something():
    bad = unchecked_tests()
    assert not bad, "tests that cannot fail (no assert, pytest.raises or asserting helper):\n" + "\n".join(bad)


def test_the_guard_catches_a_test_without_checks(tmp_path, monkeypatch):
    (tmp_path / "test_fake.py").write_text(
        "def _helper():\n    assert 1\n\ndef _noop():\n    return 2\n\n"
        "def test_uses_helper():\n    _helper()\n\ndef test_nothing():\n    _noop()\n\n"
        "def test_raises():\n    import pytest\n    with pytest.raises(ValueError):\n        int('x')\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["TESTS"]), "TESTS", tmp_path)
    assert unchecked_tests() == ["test_fake.py:10 test_nothing"]
