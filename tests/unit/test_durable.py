"""Durable results: a SIGKILL inside the rewrite window (LEAP_FAULT=rewrite) of an eval rerun or a train
resume leaves every finished row; appends and atomic writes; --resume without a checkpoint starts fresh."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from leap.durable import FAULT_ENV, append_jsonl, atomic_write_jsonl
from leap.trainer.checkpoint import resume_or_fresh

SRC = str(Path(__file__).resolve().parents[2] / "src")


def _run_killed(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, FAULT_ENV: "rewrite", "PYTHONPATH": SRC}
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == -signal.SIGKILL, (r.returncode, r.stderr[-2000:])  # it died inside the window
    return r


def _eval_rows(n_samples: int) -> list[dict]:
    rows = []
    for s in range(n_samples):
        for turn in (1, 2):
            rows.append({"task": f"t{s % 7}", "sample": s, "turn": turn, "final": turn == 2,
                         "completion": "x" * 2000, "verdict": {"status": "incorrect"}})
    return rows


def test_eval_rerun_killed_in_rewrite_window_keeps_every_finished_row(tmp_path):
    rows = _eval_rows(80)  # 160 finished rows, ~330 KB
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"task": "t0", "sample": 99, "tu')
    _run_killed(
        "from pathlib import Path\n"
        "from leap.evaluation.runner import EvalConfig, run_eval\n"
        f"run_eval(None, [], None, Path({str(tmp_path)!r}), EvalConfig())\n")
    from leap.evaluation.runner import read_results

    kept, done = read_results(path)
    assert kept == rows and len(done) == 80


def test_train_resume_killed_in_rewrite_window_keeps_every_row(tmp_path):
    rows = [{"step": s, "time": 1.0, "loss": 1.0 / s, "pad": "y" * 5000} for s in range(1, 41)]
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    _run_killed(
        "from leap.trainer.config import LoggingConfig\n"
        "from leap.trainer.logging import MetricsLogger\n"
        f"MetricsLogger(LoggingConfig(dir={str(tmp_path)!r}, progress=False), resume_step=30)\n")
    from leap.trainer.logging import read_metrics

    assert read_metrics(path) == rows  # the old file, whole: nothing truncated
    # the same resume, not killed, drops the rows after the checkpoint and appends after them
    from leap.trainer.config import LoggingConfig
    from leap.trainer.logging import MetricsLogger

    log = MetricsLogger(LoggingConfig(dir=str(tmp_path), progress=False), resume_step=30)
    log.log(31, {"loss": 0.5})
    log.close()
    got = read_metrics(path)
    assert [r["step"] for r in got] == list(range(1, 32)) and got[:30] == rows[:30]


def test_append_and_atomic_write_and_torn_tail(tmp_path):
    path = tmp_path / "a.jsonl"
    append_jsonl(path, [{"i": 1}])
    append_jsonl(path, [])
    append_jsonl(path, [{"i": 2}, {"i": 3}])
    assert [json.loads(x)["i"] for x in path.read_text().splitlines()] == [1, 2, 3]
    atomic_write_jsonl(path, [{"i": 9}])
    assert path.read_text() == '{"i": 9}\n' and [p.name for p in tmp_path.iterdir()] == ["a.jsonl"]
    with path.open("a") as f:
        f.write('{"i": 1')  # a kill mid-append leaves a torn tail; readers skip it
    from leap.trainer.logging import read_metrics

    assert read_metrics(path) == [{"i": 9}]


def test_resume_without_checkpoint_starts_fresh(tmp_path):
    said: list[str] = []
    assert resume_or_fresh(tmp_path / "nothing", log=said.append) is None
    assert len(said) == 1 and "starting fresh" in said[0]
    ck = tmp_path / "ck" / "step-3"
    ck.mkdir(parents=True)
    (ck / "state.json").write_text('{"step": 3}')
    assert resume_or_fresh(tmp_path / "ck", log=said.append) == str(tmp_path / "ck") and len(said) == 1
    assert resume_or_fresh(None) is None
