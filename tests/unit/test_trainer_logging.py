"""Metrics sinks: JSONL rows, TensorBoard events, truncation on resume, the run summary."""

import math

import pytest

from leap.trainer.config import LoggingConfig
from leap.trainer.logging import MetricsLogger, read_metrics
from leap.trainer.report import summarize


def test_tensorboard_events_written(tmp_path):
    pytest.importorskip("tensorboard", reason="tensorboard is in the [dev] extra; absent only outside CI")
    log = MetricsLogger(LoggingConfig(dir=str(tmp_path), tensorboard=True))
    log.log(1, {"loss": 0.5})
    log.close()
    assert list((tmp_path / "tb").glob("events.out.tfevents.*"))
    assert [r["step"] for r in read_metrics(tmp_path / "metrics.jsonl")] == [1]


def test_jsonl_rows_nan_and_resume_truncation(tmp_path):
    cfg = LoggingConfig(dir=str(tmp_path), tensorboard=False)
    log = MetricsLogger(cfg)
    for step in (1, 2, 3):
        log.log(step, {"loss": 0.5 / step, "acc/turn1": 0.25 * step, "time/generate": 1.0, "nan": math.nan})
    log.close()
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3] and rows[0]["nan"] is None
    assert "NaN" not in (tmp_path / "metrics.jsonl").read_text()  # strict JSON
    # resumed from a step-2 checkpoint: the row of step 3 (logged after it) is dropped, new rows appended
    log = MetricsLogger(cfg, resume_step=2)
    log.log(3, {"loss": 0.1})
    log.close()
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [r["step"] for r in rows] == [1, 2, 3] and rows[-1]["loss"] == 0.1


def test_summary_reports_time_split_and_dcp_savings(tmp_path):
    log = MetricsLogger(LoggingConfig(dir=str(tmp_path)))
    for step in (1, 2):
        log.log(step, {"time/step": 10.0, "time/generate": 6.0, "time/sandbox": 3.0, "time/train": 4.0,
                       "acc/turn1": 0.5, "acc/turn2": 0.75, "groups": 4, "dcp/groups_expanded": 1,
                       "dcp/evals_spent": 40, "dcp/evals_saved": 24})
    log.close()
    text = summarize(tmp_path / "metrics.jsonl")
    assert "| step time (s) | 10 |" in text and "| Acc@turn2 | 0.75 |" in text
    assert "2/8 groups expanded (25.0%)" in text and "spent 80, saved against expanding every group 48" in text
