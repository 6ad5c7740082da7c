"""The suite's failure log (``LEAP_TEST_FAILURE_LOG``): a GPU run cut off by its time limit keeps the
tracebacks of the failures it had already met."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_a_failure_is_logged_as_it_happens(tmp_path):
    root = tmp_path / "suite"
    root.mkdir()
    shutil.copy(TESTS / "conftest.py", root / "conftest.py")
    (root / "test_two.py").write_text("def test_fails():\n    assert 1 + 1 == 3, 'arithmetic'\n\n"
                                      "def test_passes():\n    assert True\n")
    log = tmp_path / "failures.txt"
    env = {**os.environ, "LEAP_TEST_FAILURE_LOG": str(log)}
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(root)],
                         env=env, capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert run.returncode == 1, run.stdout + run.stderr
    text = log.read_text()
    assert "test_two.py::test_fails (call" in text and "arithmetic" in text
    assert "test_passes" not in text
