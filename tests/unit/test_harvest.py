"""Expert iteration from `leap eval` rows: correct answers become SFT rows (repairs as multi-turn contexts
with the real feedback), duplicates and eval tasks are dropped; pass rates, their histogram and the RL
pool filter; the CLI end to end."""

import json

import pytest
from typer.testing import CliRunner

from leap.cli.main import app
from leap.rollout.prompts import build_messages
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.harvest import filter_by_pass_rate, harvest, pass_rates, rate_histogram
from leap.tasks.suite import builtin_tasks
from leap.trainer.config import ConfigError, RolloutConfig
from leap.trainer.loop import load_tasks

TRAIN = [t.name for t in builtin_tasks("train")]
EVAL = builtin_tasks("eval")[0].name


def _row(task, sample, turn, status, code, final):
    v = Verdict(status=status, correct=status == "ok", feedback=f"{status} feedback {sample}.{turn}")
    return {"task": task, "sample": sample, "turn": turn, "status": status, "correct": status == "ok",
            "final": final, "verdict": v.public_dict(), "completion": f"```python\n{code}\n```", "code": code}


def _rows():
    a, b = TRAIN[0], TRAIN[1]
    return [
        _row(a, 0, 1, "ok", "x = 1", True),
        _row(a, 1, 1, "ok", "x = 1  \n\n", True),        # the same code up to whitespace
        _row(a, 2, 1, "compile_error", "x = (", False),
        _row(a, 2, 2, "ok", "x = 2", True),              # a repair after real feedback
        _row(a, 3, 1, "incorrect", "x = 3", True),
        _row(b, 0, 1, "incorrect", "y = 0", True),
        _row(b, 1, 1, "incorrect", "y = 1", True),
        _row(EVAL, 0, 1, "ok", "z = 0", True),           # held out: never harvested
    ]


def test_harvest_keeps_verified_dedups_and_refuses_eval():
    tasks = {t.name: t for t in builtin_tasks()}
    rows, stats = harvest(_rows(), tasks, build_messages)
    assert [r["task_id"] for r in rows] == [TRAIN[0], TRAIN[0]]
    assert (stats.written, stats.duplicates, stats.eval_refused, stats.repairs) == (2, 1, 1, 1)
    assert stats.dedup_rate == pytest.approx(1 / 3)
    first, repair = rows
    assert first["prompt"] == build_messages(tasks[TRAIN[0]], "triton") and "x = 1" in first["answer"]
    roles = [m["role"] for m in repair["prompt"]]
    assert roles[-2:] == ["assistant", "user"] and "x = (" in repair["prompt"][-2]["content"]
    assert "compile_error feedback 2.1" in repair["prompt"][-1]["content"] and "x = 2" in repair["answer"]
    rows, stats = harvest(_rows(), tasks, build_messages, repairs=False)
    assert len(rows) == 1 and stats.repairs == 0


def test_pass_rates_histogram_and_filter(tmp_path):
    rates = pass_rates(_rows())
    assert rates[TRAIN[0]] == {"samples": 4, "solved": 2, "rate": 0.5}
    assert rates[TRAIN[1]]["rate"] == 0 and rates[EVAL]["rate"] == 1
    assert pass_rates(_rows(), turn=2)[TRAIN[0]]["rate"] == 0.75
    hist = rate_histogram(rates)
    assert hist["0"] == 1 and hist["(0.25,0.5]"] == 1 and hist["1"] == 1 and sum(hist.values()) == 3
    pool = builtin_tasks("train")
    kept = filter_by_pass_rate(pool, {n: r["rate"] for n, r in rates.items()})
    assert [t.name for t in kept] == [TRAIN[0]]


def test_cli_harvest_pass_rates_and_config_filter(tmp_path):
    d = tmp_path / "ev"
    d.mkdir()
    (d / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in _rows()))
    r = CliRunner().invoke(app, ["sft-data", "harvest", str(d), "--out", str(tmp_path / "sft.jsonl")])
    assert r.exit_code == 0, r.output
    assert "2 rows (1 repairs)" in r.output and "1 eval-task samples refused" in r.output
    assert len((tmp_path / "sft.jsonl").read_text().splitlines()) == 2
    r = CliRunner().invoke(app, ["sft-data", "pass-rates", str(d), "--out", str(tmp_path / "pr.json")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "pr.png").stat().st_size > 1000
    doc = json.loads((tmp_path / "pr.json").read_text())
    assert doc["learnable"] == 1
    cfg = RolloutConfig(pass_rate_file=str(tmp_path / "pr.json"))
    assert [t.name for t in load_tasks(cfg)] == [TRAIN[0]]
    cfg = RolloutConfig(pass_rate_file=str(tmp_path / "pr.json"), pass_rate_min=0.6)
    with pytest.raises(ConfigError, match="no task"):
        load_tasks(cfg)
    r = CliRunner().invoke(app, ["sft-data", "harvest", str(tmp_path / "none"), "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no results.jsonl" in r.output


def test_rollout_levels_keep_only_those_levels_of_the_pool():
    everything = load_tasks(RolloutConfig())
    easy = load_tasks(RolloutConfig(levels=[1, 2]))
    assert {t.level for t in easy} == {1, 2} and all(t.split == "train" for t in easy)
    assert len(easy) == sum(t.level in (1, 2) for t in everything) < len(everything)
    with pytest.raises(ConfigError, match="rollout.levels: no task of builtin:train has level 7"):
        load_tasks(RolloutConfig(levels=[7]))


def test_cli_reads_a_training_runs_rollouts(tmp_path):
    """`leap train`'s rollouts/step-N.jsonl: each step's samples count on their own (the same sample ids in two
    steps are two samples), and their correct turns are harvested as from `leap eval` results."""
    run = tmp_path / "run"
    (run / "rollouts").mkdir(parents=True)
    a = TRAIN[0]
    steps = {1: [_row(a, 0, 1, "ok", "x = 1", True), _row(a, 1, 1, "incorrect", "x = 0", True)],
             2: [_row(a, 0, 1, "incorrect", "x = 5", True), _row(a, 1, 1, "ok", "x = 7", True)]}
    for n, rows in steps.items():
        lines = [json.dumps({k: v for k, v in r.items() if k != "final"} | {"step": n}) for r in rows]
        (run / "rollouts" / f"step-{n}.jsonl").write_text("\n".join(lines) + "\n{torn")
    r = CliRunner().invoke(app, ["sft-data", "pass-rates", str(run), "--out", str(tmp_path / "pr.json")])
    assert r.exit_code == 0, r.output
    doc = json.loads((tmp_path / "pr.json").read_text())
    assert doc["rates"][a] == {"samples": 4, "solved": 2, "rate": 0.5}
    files = [str(run / "rollouts" / f"step-{n}.jsonl") for n in (2, 1)]
    r = CliRunner().invoke(app, ["sft-data", "harvest", *files, "--out", str(tmp_path / "sft.jsonl")])
    assert r.exit_code == 0, r.output
    answers = sorted(json.loads(x)["answer"] for x in (tmp_path / "sft.jsonl").read_text().splitlines())
    assert answers == ["```python\nx = 1\n```", "```python\nx = 7\n```"]
    r = CliRunner().invoke(app, ["sft-data", "pass-rates", str(tmp_path / "empty"), "--out", str(tmp_path / "x")])
    assert r.exit_code == 2 and "no results.jsonl or rollouts" in r.output
