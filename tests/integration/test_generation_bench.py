"""bench/generation.py --quick runs on the CPU and writes a well-formed report."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path


def test_generation_bench_quick(tmp_path):
    path = Path(__file__).resolve().parents[2] / "bench" / "generation.py"
    spec = importlib.util.spec_from_file_location("bench_generation", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = tmp_path / "gen.md"
    assert mod.main(["--quick", "--batches", "2", "--new", "8", "--out", str(out)]) == 0
    data = json.loads(out.with_suffix(".json").read_text())
    row = data["rows"][0]
    assert row["batch"] == 2 and all(row[p] and row[p] > 0 for p in ("naive", "static", "graph"))
    assert data["meta"]["graph_logprob_max_abs_diff"] < 1e-3
    assert "| 2 |" in out.read_text()
