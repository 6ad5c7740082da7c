"""The judge -> worker job is a frozen typed record: it round-trips through JSON and pickle, refuses
unknown or malformed fields, and nothing in it can be changed in place."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest

from leap.sandbox.pool.protocol import Job, Limits, ProtocolError, TimingSettings, TrialInput

WIRE = {"type": "check", "backend": "triton", "source": "x = 1", "device": "cuda", "gpu_visible": "3",
        "limits": {"memory_bytes": 1 << 30, "drop_uid": 65534}, "keep_paths": ["/cache"],
        "timing": {"warmup": 5, "samples": 30, "flush_l2": True, "kernel_fraction": True, "source": "x = 1",
                   "host_tolerance": 0.5, "host_slack_us": 50.0},
        "allowed_ops": ["matmul"], "transport": "ipc", "init_file": "/p/in/init.pt",
        "trials": [{"name": "t0", "inputs": "/p/in/t0.pt"},
                   {"name": "t1", "ipc_inputs": [{"t": {"dtype": "float32", "shape": [2, 3]}}, {"v": 2.5}]}]}


def test_a_job_round_trips_through_json_and_pickle():
    job = Job.from_wire(WIRE)
    assert job.limits == Limits(memory_bytes=1 << 30, drop_uid=65534)
    assert isinstance(job.timing, TimingSettings) and job.timing.samples == 30
    assert job.trials[0] == TrialInput(name="t0", inputs="/p/in/t0.pt")
    assert job.trials[1].ipc_items() == [{"t": {"dtype": "float32", "shape": [2, 3]}}, {"v": 2.5}]
    again = Job.from_wire(json.loads(json.dumps(job.to_wire())))
    assert again == job and pickle.loads(pickle.dumps(job)) == job


def test_nothing_in_a_job_can_be_changed_in_place():
    job = Job.from_wire(WIRE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.poison_rechecks = 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        job.limits.drop_uid = None
    with pytest.raises(TypeError):
        job.trials[1].ipc_inputs[0]["t"]["shape"] = [1]  # nested records are read-only views
    copy = job.trials[1].ipc_items()
    copy[0]["t"]["shape"].append(9)  # a fresh plain copy for the IPC layer; the job keeps its own
    assert job.trials[1].ipc_items()[0]["t"]["shape"] == [2, 3]


@pytest.mark.parametrize("bad, why", [({**WIRE, "child_check": False}, "unknown job fields: child_check"),
                                      ({k: v for k, v in WIRE.items() if k != "type"}, "needs a type"),
                                      ({**WIRE, "type": "exec"}, "unknown job type"),
                                      ({**WIRE, "limits": {"memory": 1}}, "malformed job"),
                                      ({**WIRE, "trials": [{"inputs": "/x"}]}, "malformed job"),
                                      ([1, 2], "a job is a JSON object")])
def test_a_malformed_job_is_refused(bad, why):
    with pytest.raises(ProtocolError, match=why):
        Job.from_wire(bad)


def test_with_fields_adds_the_inputs_the_judge_wrote():
    job = Job(type="compile", backend="cuda_inline", source="s")
    out = job.with_fields(init_file="/p/init.pt", trials=[{"name": "a", "inputs": "/p/a.pt"}])
    assert out.init_file == "/p/init.pt" and out.trials == (TrialInput("a", "/p/a.pt"),) and job.trials == ()


def test_result_problem_names_malformed_fields_and_accepts_real_answers():
    from leap.sandbox.pool.protocol import result_problem

    good = {"type": "result", "ok": True, "stage": "done", "stages": {"run": 0.1},
            "trials": [{"name": "t0", "out": "/p/out/t0_r0.pt", "out_b": {"ipc_key": "t0_r1"}, "devices": ["cpu"],
                        "inputs_unchanged": True, "poison_identical": True}], "isolation": {"uid": "ok"}}
    assert result_problem(good) is None
    assert result_problem({"ok": False, "stage": "run", "error": {"kind": "E", "message": "m"}}) is None
    assert "stages" in result_problem({**good, "stages": [0]})
    assert "ok" in result_problem({**good, "ok": "yes"})
    assert "trials[0].out" in result_problem({**good, "trials": [{"out": 3}]})
    assert "IPC" in result_problem({**good, "trials": [{"out": {"key": 1}}]})
    assert "error" in result_problem({"ok": False, "error": {"kind": ["x"]}})


def test_child_text_is_made_writable_once_at_the_boundary():
    """A candidate's exception text with lone surrogates crashed every verdict writer of a batch (red-team
    pass 2026-12-05); control characters (terminal escapes) and huge class names came through too."""
    from leap.sandbox.judge.verdict import Verdict
    from leap.sandbox.pool.protocol import KIND_CAP, TEXT_CAP, clean_text

    raw = json.loads(json.dumps({"ok": False, "error": {"kind": "E" * 10_000, "message": "bad \udc00\x1b[2J" + "x" * 50_000},
                                 "trials": [{"name": "t\ud800"}]}))
    msg = clean_text(raw)
    assert len(msg["error"]["kind"]) < KIND_CAP + 40 and "\x1b" not in msg["error"]["message"]
    assert len(msg["error"]["message"]) < TEXT_CAP + 40
    json.dumps(msg, ensure_ascii=False).encode("utf-8")  # any UTF-8 writer takes it
    assert msg["trials"][0]["name"] == "t?" and msg["ok"] is False
    v = Verdict(status="runtime_error", feedback="from the source \ud800", detail="\udfff")
    assert json.dumps(v.public_dict(), ensure_ascii=False).encode("utf-8")


def test_a_candidates_tree_is_removed_however_deep(tmp_path):
    """A 3,000-level directory chain made ``shutil.rmtree`` raise RecursionError (not covered by
    ``ignore_errors``): the verdict was replaced and the tree bricked later pool starts."""
    import os

    from leap.sandbox.pool.pool import _remove

    root = tmp_path / "private"
    root.mkdir()
    fd = os.open(root, os.O_RDONLY)
    for _ in range(3000):
        os.mkdir("d", dir_fd=fd)
        nxt = os.open("d", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = nxt
    os.close(fd)
    _remove(root)
    assert not root.exists()
