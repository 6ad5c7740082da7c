"""The shortened demo end to end: real tasks, real sandbox (Triton interpreter), a tiny policy trained
from scratch, LEAP RL through the trainer's update, report with plots."""

from __future__ import annotations

import ast
import json
import math
import os
import re

import pytest
import torch
from typer.testing import CliRunner

from leap.cli.main import app


@pytest.mark.slow
def test_quick_demo_writes_report(tmp_path):
    os.environ.setdefault("TRITON_INTERPRET", "1")
    out = tmp_path / "demo"
    res = CliRunner().invoke(app, ["demo", "--quick", "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["sft_pairs"] > 50
    for key in ("eval_sft", "eval_rl"):
        acc = summary[key]["acc_at_turn"]
        assert len(acc) == 3 and all(0.0 <= a <= 1.0 for a in acc)
        assert acc == sorted(acc)  # Acc@turn k is cumulative
    # SFT taught the policy something: it solves some held-out tasks at turn 1
    assert summary["eval_sft"]["tasks_solved_turn1_any"] > 0
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == summary["config"]["rl_steps"]
    for r in rows:
        assert r["evals_spent"] <= r["evals_all_expanded"]
        assert 0 <= r["groups_expanded"] <= r["groups"]
        assert r["train_samples"] >= r["groups"] * summary["config"]["group_size"]  # every turn-1 sample trains
        assert r["loss"] is not None and math.isfinite(r["loss"])
    # the RL update moved the weights (the saved RL policy differs from the SFT policy)
    from safetensors.torch import load_file

    w_sft, w_rl = (load_file(str(out / d / "model.safetensors")) for d in ("policy_sft", "policy_rl"))
    assert any(not torch.equal(w_sft[k], w_rl[k]) for k in w_sft)
    for name in ("report.md", "heldout_acc_at_turn.png", "train_solved_and_reward.png", "dcp_sandbox_evals.png",
                 "sft.jsonl"):
        assert (out / name).stat().st_size > 0
    # RL ran through the trainer's own loop: its metrics logger wrote one row per step
    trainer_rows = (out / "rl_leap" / "metrics.jsonl").read_text().splitlines()
    assert len(trainer_rows) == summary["config"]["rl_steps"]
    # the turn-1 SFT pairs are exactly the template solutions the sandbox passed (its counts, printed)
    pairs = [json.loads(line) for line in (out / "sft.jsonl").read_text().splitlines()]
    m = re.search(r"SFT pairs: (\d+)/(\d+) template solutions verified \((\{.*?\})\)", res.output)
    assert m, res.output[-2000:]
    counts = ast.literal_eval(m.group(3))
    assert sum(1 for p in pairs if p["turn"] == 1) == int(m.group(1)) == counts.get("ok", 0)
    assert sum(counts.values()) == int(m.group(2))
    # the RL stage had a learning signal and used it: rewards differed inside groups, gradients were non-zero
    trainer = [json.loads(line) for line in trainer_rows]
    assert any(r.get("reward/std", 0) > 0 for r in trainer), trainer
    assert any((r.get("grad_norm") or 0) > 0 for r in trainer), trainer
    assert "Acc@turn" in (out / "report.md").read_text()


def test_demo_rejects_bad_device(tmp_path):
    res = CliRunner().invoke(app, ["demo", "--device", "tpu", "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "--device" in res.output


def test_demo_rejects_bad_variant(tmp_path):
    res = CliRunner().invoke(app, ["demo", "--variant", "nope", "--out", str(tmp_path)])
    assert res.exit_code == 2
    assert "--variant" in res.output


def test_family_split_is_disjoint_and_templates_verify():
    os.environ.setdefault("TRITON_INTERPRET", "1")
    from leap.demo.family import make_task, solution, split_chains
    from leap.sandbox import verify_many

    train, held = split_chains(3, 60, 10)
    assert len(held) == 10 and not set(train) & set(held)
    assert len(set(train)) == len(train)
    chains = held[:2]
    verdicts = dict(verify_many([(make_task(c), solution(c)) for c in chains], device="cpu"))
    assert all(v.correct for v in verdicts.values()), [v.feedback for v in verdicts.values()]
    wrong = dict(verify_many([(make_task(chains[0]), solution(chains[1]))], device="cpu"))
    assert not wrong[0].correct


def test_rl_pools_never_touch_held_out_tasks():
    from leap.demo.pipeline import DemoConfig, task_split

    base = task_split(DemoConfig(seed=5, n_train=80, n_rl_pool=40))
    for pool in ("sft", "fresh", "mixed"):
        train, rl, held = task_split(DemoConfig(seed=5, n_train=80, n_rl_pool=40, rl_pool=pool))
        assert not set(held) & (set(train) | set(rl))
        assert train == base[0] and held == base[2]  # the pool choice changes neither SFT nor held-out tasks
    _, fresh, _ = task_split(DemoConfig(seed=5, n_train=80, n_rl_pool=40, rl_pool="fresh"))
    assert len(fresh) == 40 and not set(fresh) & set(train)
    with pytest.raises(ValueError, match="rl_pool"):
        task_split(DemoConfig(rl_pool="held"))


def test_tiny_tokenizer_roundtrip_and_prompts():
    from leap.demo.family import compact_spec, solution
    from leap.demo.policy import build_prompt, extract_code, format_answer, train_tokenizer

    chain = ("relu", "mul2.0", "sin")
    texts = [build_prompt(compact_spec(chain)) + format_answer(solution(chain))]
    tok = train_tokenizer(texts * 4, 300)
    assert tok.decode(tok.encode(texts[0]).ids) == texts[0]
    assert extract_code("thinking...\n" + format_answer(solution(chain))).strip() == solution(chain).strip()
    p2 = build_prompt(compact_spec(chain), [("code", "Incorrect output on trial 1: 3 of 9 values")])
    assert "### Previous\ncode" in p2 and "Incorrect output on trial 1\n" in p2 and p2.endswith("### Answer\n")


@pytest.mark.gpu
def test_quick_demo_on_cuda(tmp_path):
    out = tmp_path / "demo_cuda"
    res = CliRunner().invoke(app, ["demo", "--quick", "--device", "cuda", "--out", str(out)])
    assert res.exit_code == 0, res.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["eval_sft"]["tasks_solved_turn1_any"] > 0
    assert (out / "report.md").stat().st_size > 0
