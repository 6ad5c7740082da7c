"""``leap verify`` / ``leap verify-batch``: one JSON object with --json, exit 0 on any verdict,
exit 2 with one line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sandbox_cases import kernels as K

LEAP = [sys.executable, "-c", "from leap.cli.main import app; app()"]


def run(*args, cwd=None):
    return subprocess.run([*LEAP, *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture()
def files(tmp_path):
    (tmp_path / "ok.py").write_text(K.RELU)
    (tmp_path / "bad.py").write_text(K.RELU_MASK_OFF_BY_ONE)
    (tmp_path / "task_rowsum.py").write_text(K.ROWSUM_TASK)
    (tmp_path / "rowsum.py").write_text(K.ROWSUM)
    (tmp_path / "broken_task.py").write_text("import torch\nclass Model:\n    pass\n")
    return tmp_path


def test_verify_json_is_one_object(files):
    p = run("verify", "relu_fp32", str(files / "ok.py"), "--device", "cpu", "--json")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 1
    obj = json.loads(lines[0])
    for key in ("status", "correct", "compiled", "speedup_eager", "speedup_compile", "runtime_us",
                "ref_runtime_us", "feedback", "stage_seconds"):
        assert key in obj
    assert obj["status"] == "ok" and obj["correct"] is True and "detail" not in obj


def test_verify_incorrect_still_exits_zero_and_task_file_works(files):
    p = run("verify", str(files / "task_rowsum.py"), str(files / "rowsum.py"), "--json", "--backend", "triton")
    assert p.returncode == 0 and json.loads(p.stdout)["status"] == "ok"
    p = run("verify", "relu_fp32", str(files / "bad.py"))
    assert p.returncode == 0 and "incorrect" in p.stdout


def test_verify_strict_exits_one_unless_correct(files):
    p = run("verify", "relu_fp32", str(files / "bad.py"), "--device", "cpu", "--strict", "--json")
    assert p.returncode == 1 and json.loads(p.stdout)["status"] == "incorrect"
    p = run("verify", "relu_fp32", str(files / "ok.py"), "--device", "cpu", "--strict")
    assert p.returncode == 0 and "ok" in p.stdout


@pytest.mark.parametrize("args,needle", [
    (["verify", "no_such_task_xyz", "ok.py"], "no_such_task_xyz"),
    (["verify", "broken_task.py", "ok.py"], "missing get_inputs"),
    (["verify", "relu_fp32", "missing.py"], "missing.py"),
    (["verify", "relu_fp32", "ok.py", "--backend", "cobol"], "--backend"),
    (["verify", "relu_fp32", "ok.py", "--device", "tpu"], "--device"),
    (["verify-batch", "nothing_here.jsonl"], "nothing_here.jsonl"),
])
def test_bad_input_exits_2_with_one_line(files, args, needle):
    p = run(*args, cwd=files)
    assert p.returncode == 2, (p.stdout, p.stderr)
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and needle in err[0] and err[0].startswith("error:"), p.stderr
    assert p.stdout == ""


def test_verify_batch_jsonl_and_directory(files):
    batch = files / "batch.jsonl"
    rows = [{"task": "relu_fp32", "candidate": str(files / "ok.py")},
            {"task": "relu_fp32", "source": K.RELU_UNWRITTEN_TAIL},
            {"task": str(files / "task_rowsum.py"), "candidate": str(files / "rowsum.py")}]
    batch.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = files / "v.jsonl"
    p = run("verify-batch", str(batch), "--out", str(out), "--device", "cpu")
    assert p.returncode == 0, p.stderr
    got = {r["index"]: r for r in map(json.loads, out.read_text().splitlines())}
    assert [got[i]["status"] for i in range(3)] == ["ok", "incorrect", "ok"]
    pair = files / "pairs" / "relu"
    pair.mkdir(parents=True)
    (pair / "task.txt").write_text("relu_fp32\n")
    (pair / "candidate_a.py").write_text(K.RELU)
    (pair / "candidate_b.py").write_text(K.RELU_WRONG_DTYPE)
    p = run("verify-batch", str(files / "pairs"), "-o", str(out))
    assert p.returncode == 0, p.stderr
    statuses = sorted(json.loads(x)["status"] for x in out.read_text().splitlines())
    assert statuses == ["incorrect", "ok"]


def test_bad_batch_line_exits_2(files):
    (files / "b.jsonl").write_text('{"task": "relu_fp32"}\n')
    p = run("verify-batch", str(files / "b.jsonl"))
    assert p.returncode == 2 and "b.jsonl:1" in p.stderr
