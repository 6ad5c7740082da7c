"""`leap train` on a tiny model: dcp.keep_solved reaches the episode runner (solved samples of an expanded
group get more turns), each step writes rollouts/step-N.jsonl and prints a verdict breakdown line."""

import json

import pytest
import torch

from leap.rollout.policies.hf import HFPolicy
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.suite import get_builtin
from leap.trainer import loop
from leap.trainer.config import load_config
from leap.trainer.model import load_policy
from leap.trainer.rollouts import Rollouts
from leap.trainer.samples_log import RolloutRow, status_line


@pytest.fixture
def fenced(monkeypatch):
    original = HFPolicy.generate

    def generate(self, prompts, params):
        gens = original(self, prompts, params)
        for g in gens:
            g.text = "```python\n|" + g.text.replace("`", "'") + "|\n```"
        return gens

    monkeypatch.setattr(HFPolicy, "generate", generate)


def alternating(pairs):
    """Every other candidate of a batch is correct (1st, 3rd, ...), the rest compile errors."""
    return [Verdict(status="ok", correct=True, speedup_eager=1.5) if i % 2 == 0 else
            Verdict(status="compile_error", feedback="SyntaxError: bad") for i, _ in enumerate(pairs)]


def _cfg(tmp_path, *extra):
    return load_config(None, ["model.tiny.layers=1", "model.tiny.hidden=32", "device=cpu", "rollout.group_size=4",
                              "rollout.tasks_per_step=1", "rollout.max_turns=2", "rollout.sampling.max_new_tokens=4",
                              "rollout.tasks=builtin:train", "rollout.task_filter=[relu_fp32]",
                              "dcp.enabled=false", f"logging.dir={tmp_path}/log", "logging.progress=false",
                              f"checkpoint.dir={tmp_path}/ck", "optim.micro_batch_size=16", *extra])


@pytest.mark.parametrize("keep", [False, True])
def test_keep_solved_reaches_the_runner(tmp_path, fenced, keep):
    cfg = _cfg(tmp_path, f"dcp.keep_solved={str(keep).lower()}")
    torch.manual_seed(0)
    policy = load_policy(cfg.model, torch.device("cpu"))
    with Rollouts(policy, cfg, verifier=alternating) as ro:
        (group,), _ = ro.collect([get_builtin("relu_fp32")])
    turns = {tr.sample: len(tr.turns) for tr in group.trajectories}
    solved_first = [tr.sample for tr in group.trajectories if tr.turns[0].solved]
    assert solved_first == [0, 2]
    assert all(turns[s] == (2 if keep else 1) for s in solved_first)
    assert all(turns[s] == 2 for s in (1, 3))


def test_train_writes_rollouts_and_status_line(tmp_path, fenced, capsys):
    cfg = _cfg(tmp_path, "steps=2")
    loop.train(cfg, verifier=alternating)
    out = capsys.readouterr().out
    lines = [ln for ln in out.splitlines() if ln.startswith("step ")]
    assert [ln.split(":")[0] for ln in lines] == ["step 1", "step 2"]
    assert " ok " in lines[0] and "compile_error" in lines[0] and " gen " in lines[0] and " train " in lines[0]
    for n in (1, 2):
        rows = [RolloutRow.model_validate(json.loads(x))
                for x in (tmp_path / "log" / "rollouts" / f"step-{n}.jsonl").read_text().splitlines()]
        assert {r.task for r in rows} == {"relu_fp32"} and {r.step for r in rows} == {n}
        assert len({r.sample for r in rows}) == 4 and {r.turn for r in rows} == {1, 2}
        bad = [r for r in rows if r.status == "compile_error"]
        assert bad and all(r.feedback == "SyntaxError: bad" and not r.correct for r in bad)
        assert all(r.completion.startswith("```python") for r in rows)
        assert all(r.verdict["status"] == r.status and r.code and r.code in r.completion for r in rows)
        # solved samples out-rank failed ones: positive vs negative advantage on turn 1
        first = {r.sample: r for r in rows if r.turn == 1}
        assert first[0].advantage > 0 > first[1].advantage and first[0].reward > 0
    # the line counts every turn of the step
    assert lines[0].split(":")[1].split()[0] == str(len(rows))


def test_status_line_format():
    rows = [RolloutRow(step=3, task="t", sample=i, turn=1, completion="", status=s, correct=s == "ok", feedback="",
                       reward=r, advantage=0.0, completion_tokens=1, group_expanded=False)
            for i, (s, r) in enumerate([("ok", 1.0), ("incorrect", 0.0), ("incorrect", 0.0), ("timeout", 0.0)])]
    line = status_line(3, rows, {"generate": 20.12, "sandbox": 5.2, "train": 3.0})
    assert line == "step 3: 4 samples  ok 1  incorrect 2  timeout 1  reward 0.25  gen 20.1s sandbox 5.2s train 3.0s"


def test_a_time_budget_stops_before_a_step_that_would_not_finish(tmp_path, fenced):
    """The first step always runs; the next one only if, as long as the longest so far, it ends in the budget.
    The run ends with a checkpoint of the last finished step."""
    import time

    assert loop.step_fits(0.0, 0.0, 10.0) and loop.step_fits(5.0, 4.0, None)
    assert loop.step_fits(6.0, 4.0, 10.0) and not loop.step_fits(6.1, 4.0, 10.0)

    def slow(pairs):
        time.sleep(0.6)  # every step's sandbox takes 0.6 s: a 1 s budget holds one step, never two
        return alternating(pairs)

    cfg = _cfg(tmp_path, "steps=5", "time_budget_s=1.0", "checkpoint.every=0")
    out = loop.train(cfg, verifier=slow)
    assert out["step"] == 1 and out["out_of_time"] and not out["stopped"]
    assert (tmp_path / "ck" / "step-1").exists()
    assert loop.train(_cfg(tmp_path / "b", "steps=2"), verifier=alternating)["out_of_time"] is False
