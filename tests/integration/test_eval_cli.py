"""`leap eval` end to end on the CPU: tiny random model, real sandbox (Triton interpreter), resume."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from leap.cli.main import app


@pytest.fixture(scope="module")
def tiny_dir(tmp_path_factory):
    from leap.models.tiny import save_tiny

    return save_tiny(tmp_path_factory.mktemp("tiny") / "model")


def _eval(model, out, *extra):
    return CliRunner().invoke(app, ["eval", "--model", str(model), "--backend", "hf", "--tasks", "builtin:eval",
                                    "--limit", "2", "--samples", "2", "--turns", "2", "--out", str(out),
                                    "--max-new-tokens", "16", "--device", "cpu", *extra])


@pytest.mark.slow
def test_eval_end_to_end_and_resume(tiny_dir, tmp_path):
    out = tmp_path / "ev"
    r = _eval(tiny_dir, out)
    assert r.exit_code == 0, r.output
    rows = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    finals = [(x["task"], x["sample"]) for x in rows if x["final"]]
    assert len(finals) == 4 == len(set(finals))
    # a failing sample runs both turns; every line has a verdict
    assert all(x["verdict"]["status"] for x in rows) and {x["turn"] for x in rows} <= {1, 2}
    for task, sample in finals:
        turns = [x for x in rows if (x["task"], x["sample"]) == (task, sample)]
        assert [x["turn"] for x in turns] == list(range(1, len(turns) + 1))
        assert len(turns) == 2 or turns[-1]["correct"]
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tasks"] == 2 and summary["samples"] == 4 and len(summary["acc_at_turn"]) == 2
    assert summary["fast_1_eager"] is None and summary["pass_at_k"].keys() == {"1", "2"}
    assert summary["sandbox_evals"] == sum(1 for x in rows if x["code"])
    report = (out / "report.md").read_text()
    assert "Acc@turn 2" in report and (out / "acc_at_turn.png").stat().st_size > 1000

    # resume: nothing to do; then drop one sample's final line -> only that sample reruns
    r = _eval(tiny_dir, out)
    assert r.exit_code == 0 and len((out / "results.jsonl").read_text().splitlines()) == len(rows)
    lines = (out / "results.jsonl").read_text().splitlines()
    (out / "results.jsonl").write_text("\n".join(lines[:-1]) + "\n{\"torn")
    r = _eval(tiny_dir, out)
    assert r.exit_code == 0, r.output
    again = [json.loads(x) for x in (out / "results.jsonl").read_text().splitlines()]
    assert len(again) == len(rows)
    assert sorted((x["task"], x["sample"]) for x in again if x["final"]) == sorted(finals)


def test_eval_bad_model_and_unreachable_endpoint(tmp_path):
    r = _eval(tmp_path / "missing", tmp_path / "o")
    assert r.exit_code == 2 and "config.json" in r.output and r.output.strip().count("\n") == 0
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    r = CliRunner().invoke(app, ["eval", "--model", f"http://127.0.0.1:{port}/v1", "--backend", "openai",
                                 "--tasks", "builtin:eval", "--out", str(tmp_path / "o2")])
    assert r.exit_code == 2 and "unreachable" in r.output
    r = _eval(tmp_path / "missing", tmp_path / "o", "--kernel", "opencl")
    assert r.exit_code == 2 and "--kernel" in r.output
    for extra, words in ((("--rules", "strict"), "--rules"), (("--sandbox-set", "nope=1"), "not a sandbox setting"),
                         (("--sandbox-set", "judge_memory_share=2"), "judge_memory_share"),
                         (("--sandbox-set", "workers"), "KEY=VALUE")):
        r = _eval(tmp_path / "missing", tmp_path / "o", *extra)
        assert r.exit_code == 2 and words in r.output and r.output.strip().count("\n") == 0, r.output


def test_eval_kernelbench_prompt_writes_kernelbench_results(tiny_dir, tmp_path):
    out = tmp_path / "kb"
    r = CliRunner().invoke(app, ["eval", "--model", str(tiny_dir), "--backend", "hf", "--tasks", "builtin:eval",
                                 "--limit", "2", "--samples", "1", "--turns", "1", "--out", str(out),
                                 "--max-new-tokens", "8", "--device", "cpu", "--prompt", "kernelbench",
                                 "--rules", "kernelbench", "--sandbox-set", "workers=1",
                                 "--sandbox-set", "judge_memory_share=0.3"])
    assert r.exit_code == 0, r.output
    results = json.loads((out / "eval_results.json").read_text())
    assert sorted(results) == ["1", "2"]  # built-in tasks: numbered by position
    assert all(set(e) >= {"sample_id", "compiled", "correctness", "runtime", "runtime_stats", "metadata"}
               for rows in results.values() for e in rows)
    summary = json.loads((out / "summary.json").read_text())
    kb = summary["kernelbench"]
    assert kb["problems"] == 2 and kb["fast_1"] is None  # CPU: untimed
    assert summary["prompt_mode"] == "kernelbench" and summary["sampling"]["max_new_tokens"] == 8
    assert summary["sampling"]["rules"] == "kernelbench"
    assert summary["sampling"]["sandbox_set"] == ["workers=1", "judge_memory_share=0.3"]
    env = summary["environment"]
    assert env["torch"] and "transformers" in env and "git_commit" in env and env["gpu_count"] == 0
    assert "kernelbench (sample 0, turn 1)" in r.output
    bad = CliRunner().invoke(app, ["eval", "--model", str(tiny_dir), "--tasks", "builtin:eval", "--out", str(out),
                                   "--prompt", "kernelbench", "--kernelbench-root", str(tmp_path / "none")])
    assert bad.exit_code == 2 and "prompts.toml" in bad.output
