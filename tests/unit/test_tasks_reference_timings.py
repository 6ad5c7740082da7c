"""bench/reference_timings.py runs end to end on the CPU (--quick) and writes its Markdown report."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_reference_timings_script_on_cpu(tmp_path):
    out, js = tmp_path / "t.md", tmp_path / "t.json"
    cmd = [sys.executable, str(ROOT / "bench" / "reference_timings.py"), "--device", "cpu", "--quick",
           "--only", "relu_fp32,softmax_bf16,rnn_cell_fp32", "--out", str(out), "--json", str(js)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    text = out.read_text()
    assert "# Reference timings" in text and "| relu_fp32 | 1 | fp32 | train |" in text
    rows = json.loads(js.read_text())["rows"]
    assert {r["name"] for r in rows} == {"relu_fp32", "softmax_bf16", "rnn_cell_fp32"}
    assert all(r["eager_us"] > 0 and not r["error"] for r in rows)
    merged = tmp_path / "m.md"
    res = subprocess.run([sys.executable, str(ROOT / "bench" / "reference_timings.py"), "--merge", str(js),
                          "--out", str(merged)], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0 and "rnn_cell_fp32" in merged.read_text()


@pytest.mark.skipif(__import__("torch").cuda.is_available(), reason="this machine has a CUDA GPU")
def test_reference_timings_needs_a_gpu_for_cuda():
    res = subprocess.run([sys.executable, str(ROOT / "bench" / "reference_timings.py"), "--only", "relu_fp32"],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2 and "no CUDA GPU" in res.stderr
