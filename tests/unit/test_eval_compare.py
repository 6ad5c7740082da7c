"""`leap compare`: the difference of two evaluations' Acc@turn and a bootstrap interval that widens with noise."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from leap.cli.main import app
from leap.evaluation.compare import CompareError, compare_results, compare_turn, solved_by
from leap.sandbox.judge.verdict import Verdict

OK, BAD, NOGPU = Verdict(status="ok", correct=True), Verdict(status="incorrect"), Verdict(status="needs_gpu")


def _results(pattern: dict[str, list[str]]):
    """task -> samples, each a string of turn outcomes: 'o' ok, 'x' incorrect, 'g' needs_gpu."""
    v = {"o": OK, "x": BAD, "g": NOGPU}
    return {t: [[v[c] for c in s] for s in samples] for t, samples in pattern.items()}


def test_solved_by_counts_turns_and_leaves_out_unjudged_samples():
    r = _results({"a": ["xo", "xx", "gg"], "b": ["o", "x"]})
    assert solved_by(r, 1) == {"a": [False, False], "b": [True, False]}
    assert solved_by(r, 2) == {"a": [True, False], "b": [True, False]}


def test_equal_runs_give_zero_and_an_interval_around_it():
    a = {f"t{i}": [i % 2 == 0, False, True, False] for i in range(20)}
    c = compare_turn(a, a, 1, boot=2000)
    assert c.diff == 0 and c.ci_low < 0 < c.ci_high and not c.excludes_zero and c.tasks == 20


def test_a_clear_gain_excludes_zero_and_a_gain_on_one_task_does_not():
    before = {f"t{i}": [False, False, False, False] for i in range(20)}
    broad = {f"t{i}": [True, True, False, False] for i in range(20)}  # +0.5 on every task
    c = compare_turn(before, broad, 1, boot=2000)
    assert c.diff == pytest.approx(0.5) and c.excludes_zero and c.ci_low > 0.3
    lucky = dict(before, t0=[True, True, True, True])  # +0.05 on average, all from one task
    c = compare_turn(before, lucky, 1, boot=2000)
    assert c.diff == pytest.approx(0.05) and not c.excludes_zero and c.ci_low == 0


def test_only_common_tasks_count_and_no_common_task_is_an_error():
    a, b = {"x": [True], "y": [False]}, {"y": [True], "z": [True]}
    c = compare_turn(a, b, 1, boot=200)
    assert (c.tasks, c.acc_a, c.acc_b) == (1, 0.0, 1.0)
    with pytest.raises(CompareError, match="share no judged task"):
        compare_turn({"x": [True]}, {"z": [True]}, 1)


def test_seeded_and_per_turn():
    a = _results({f"t{i}": ["xx", "xo", "ox"] for i in range(6)})
    b = _results({f"t{i}": ["oo", "xo", "ox"] for i in range(6)})
    rows = compare_results(a, b, 2, boot=500, seed=3)
    assert rows == compare_results(a, b, 2, boot=500, seed=3)
    assert [r.turn for r in rows] == [1, 2]
    assert rows[0].acc_a == pytest.approx(1 / 3) and rows[0].acc_b == pytest.approx(2 / 3)
    assert rows[1].acc_a == pytest.approx(2 / 3) and rows[1].acc_b == pytest.approx(1.0)


def _eval_folder(path, pattern):
    path.mkdir()
    rows = []
    for task, samples in pattern.items():
        for s, turns in enumerate(samples):
            for k, c in enumerate(turns):
                v = OK if c == "o" else BAD
                rows.append({"task": task, "sample": s, "turn": k + 1, "status": v.status, "correct": v.correct,
                             "final": k == len(turns) - 1, "verdict": v.public_dict()})
    (path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_leap_compare_cli_writes_table_json_and_plot(tmp_path):
    a = _eval_folder(tmp_path / "sft", {f"t{i}": ["xx", "xx"] for i in range(10)})
    b = _eval_folder(tmp_path / "rl", {f"t{i}": ["ox", "xo"] for i in range(10)})
    r = CliRunner().invoke(app, ["compare", str(a), str(b), "--boot", "500", "--out", str(tmp_path / "cmp")])
    assert r.exit_code == 0, r.output
    assert "| 1 | 0.000 | 0.500 | +0.500 |" in r.output and "| 2 | 0.000 | 1.000 | +1.000 |" in r.output
    doc = json.loads((tmp_path / "cmp" / "compare.json").read_text())
    assert [t["excludes_zero"] for t in doc["turns"]] == [True, True]
    assert (tmp_path / "cmp" / "compare.png").stat().st_size > 5000
    r = CliRunner().invoke(app, ["compare", str(a), str(tmp_path / "none")])
    assert r.exit_code == 2 and "no results.jsonl" in r.output
    (tmp_path / "torn").mkdir()
    (tmp_path / "torn" / "results.jsonl").write_text('{"task": "t0", "sample": 0, "final": true}\n')
    r = CliRunner().invoke(app, ["compare", str(a), str(tmp_path / "torn")])
    assert r.exit_code == 2 and "unreadable row" in r.output
