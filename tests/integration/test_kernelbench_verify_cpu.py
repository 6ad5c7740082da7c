"""`leap verify --device cpu` on a KernelBench-shaped problem of 6 GiB inputs: derived CPU sizes, real
Triton interpreter, verdict ok."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from leap.cli.main import app

FIX = Path(__file__).resolve().parents[1] / "fixtures"


def test_verify_cpu_large_shape_problem_is_ok():
    task = FIX / "kernelbench_like" / "level1" / "3_LeakyGate.py"
    cand = FIX / "kernelbench_solutions" / "3_LeakyGate_triton.py"
    r = CliRunner().invoke(app, ["verify", str(task), str(cand), "--device", "cpu", "--json"])
    assert r.exit_code == 0, r.output
    v = json.loads(r.output.strip().splitlines()[-1])
    assert v["status"] == "ok" and v["correct"], v
