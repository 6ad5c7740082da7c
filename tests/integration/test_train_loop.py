"""`leap train` end to end on the CPU with a tiny model: learning, exact resume after a signal, the real
sandbox (Triton interpreter) feeding a training step, and the CLI."""

import json
import os
import signal
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import _fence, letter_early, letter_rule, short_prompt, write_tiny_checkpoint  # noqa: E402,F401

from leap.sandbox.judge.verdict import Verdict  # noqa: E402
from leap.trainer import loop  # noqa: E402
from leap.trainer.checkpoint import StopFlag  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.logging import read_metrics  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "model"))


def _cfg(tiny_path, tmp_path, *extra):
    return load_config(None, [
        f"model.path={tiny_path}", "model.lora.rank=8", "model.lora.targets=all-linear", "device=cpu",
        "rollout.tasks=builtin:train", "rollout.task_filter=[relu_fp32, add_fp32, sigmoid_fp32]",
        "rollout.group_size=8", "rollout.tasks_per_step=2", "rollout.max_turns=1",
        "rollout.sampling.max_new_tokens=6", "optim.lr=5e-2", "optim.grad_clip=0", "optim.micro_batch_size=16",
        f"logging.dir={tmp_path}/log", "logging.progress=false", f"checkpoint.dir={tmp_path}/ck",
        "checkpoint.every=0", *extra])


@pytest.fixture
def fenced(monkeypatch):
    """Completions fenced so that the runner hands the raw text to the rule as the candidate code."""
    from leap.rollout.policies.hf import HFPolicy

    original = HFPolicy.generate
    monkeypatch.setattr(HFPolicy, "generate", lambda self, prompts, params: _fence(original(self, prompts, params)))


@pytest.fixture
def short_prompts(monkeypatch, fenced):
    """Short task prompts (and fenced completions)."""
    from leap.rollout import episode

    monkeypatch.setattr(episode, "build_messages", short_prompt)


@pytest.mark.parametrize("seed", [0, 1])
def test_mean_reward_rises_on_a_learnable_rule(tiny_path, tmp_path, short_prompts, seed):
    # Not a chosen seed: at these settings the rise (mean of the last 3 steps' turn-1 accuracy minus the first
    # 2 steps') was 0.20-0.57 on each of seeds 0, 2-9 (2026-12-01); one step's accuracy over 32 samples has a
    # standard error of ~0.08, so the margin of 0.15 is ~2.5 standard errors of the difference.
    cfg = _cfg(tiny_path, tmp_path, "steps=10", "rollout.tasks_per_step=4", "optim.lr=1e-1", f"seed={seed}")
    summary = loop.train(cfg, verifier=letter_early)
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    acc = [r["acc/turn1"] for r in rows]
    assert summary["step"] == 10 and len(rows) == 10
    assert all(r["loss"] is not None and abs(r["loss"]) < 1e3 for r in rows)
    assert sum(acc[-3:]) / 3 >= sum(acc[:2]) / 2 + 0.15, acc
    reward = [r["reward/mean"] for r in rows]
    assert sum(reward[-3:]) / 3 > sum(reward[:2]) / 2, reward


def test_resume_after_sigterm_matches_straight_run(tiny_path, tmp_path, short_prompts):
    extra = ["steps=4", "rollout.max_turns=2", "rollout.tasks_per_step=2", "rollout.group_size=4",
             "rollout.sampling.max_new_tokens=5", "optim.lr=1e-2", "optim.micro_batch_size=3"]
    straight = _cfg(tiny_path, tmp_path / "a", *extra)
    loop.train(straight, verifier=letter_early)

    sent = []
    log_b = tmp_path / "b" / "log" / "metrics.jsonl"

    def signalling(pairs):  # a real SIGTERM to this process during step 2's rollout
        if not sent and log_b.is_file() and len(read_metrics(log_b)) == 1:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGTERM)
        return letter_early(pairs)

    cut = _cfg(tiny_path, tmp_path / "b", *extra)
    with StopFlag() as stop:
        first = loop.train(cut, verifier=signalling, stop=stop)
    assert first["stopped"] and first["signal"] == "SIGTERM" and first["step"] == 2
    assert (tmp_path / "b" / "ck" / "latest").read_text().strip() == "step-2"
    second = loop.train(cut, verifier=letter_early, resume=str(tmp_path / "b" / "ck"))
    assert second["step"] == 4

    a = read_metrics(tmp_path / "a" / "log" / "metrics.jsonl")
    b = read_metrics(tmp_path / "b" / "log" / "metrics.jsonl")
    assert [r["step"] for r in b] == [1, 2, 3, 4]
    assert any(r["dcp/groups_expanded"] for r in a), "no group expanded: the test would not cover turn 2"
    for ra, rb in zip(a, b, strict=True):
        for key in ("acc/turn1", "acc/turn2", "tokens/completion", "dcp/evals_spent", "train_samples"):
            assert ra[key] == rb[key], (ra["step"], key)
        for key in ("loss", "grad_norm", "entropy", "adv/sample_abs_mean"):
            assert ra[key] == pytest.approx(rb[key], rel=1e-4, abs=1e-6), (ra["step"], key)
    wa = torch.load(tmp_path / "a" / "ck" / "step-4" / "trainable.pt")
    wb = torch.load(tmp_path / "b" / "ck" / "step-4" / "trainable.pt")
    assert all(torch.allclose(wa[k], wb[k], rtol=1e-4, atol=1e-6) for k in wa)
    state = json.loads((tmp_path / "b" / "ck" / "step-4" / "state.json").read_text())
    assert state["dcp"]["steps"] == 4 and state["data_pos"] == 8


def test_real_sandbox_verdicts_feed_a_training_step(tiny_path, tmp_path):
    """Candidates verified by the real sandbox (Triton interpreter): the known-good solution, a solution
    of another task (incorrect) and prose (format error) -> tournament -> one update of every LoRA tensor."""
    from leap.rollout.extract import extract_code
    from leap.rollout.records import Group, Trajectory, Turn
    from leap.tasks.solutions import reference_solution
    from leap.tasks.suite import get_builtin
    from leap.trainer.model import load_policy
    from leap.trainer.optim import build_optimizer, build_scheduler
    from leap.trainer.rollouts import Rollouts
    from leap.trainer.step import train_on_groups

    cfg = _cfg(tiny_path, tmp_path, "rollout.group_size=4", "rollout.sandbox_device=cpu",
               "rollout.sandbox_workers=2", "optim.lr=1e-2",
               "optim.passes_per_batch=2")  # two updates: LoRA A only gets gradient once B is non-zero
    task = get_builtin("relu_fp32")
    good = f"Plan: one pass.\n```python\n{reference_solution(task)}```"
    wrong = f"```python\n{reference_solution(get_builtin('sigmoid_fp32'))}```"
    completions = [good, wrong, "I would write a kernel.", good]
    policy = load_policy(cfg.model, torch.device("cpu"))
    tok = policy.tokenizer
    with Rollouts(policy, cfg) as ro:
        codes = [extract_code(c) for c in completions]
        got = iter(ro.verifier([(task, c) for c in codes if c]))
        verdicts = [next(got) if c else Verdict(status="format_error") for c in codes]
        messages = [{"role": "user", "content": "relu"}]
        prompt = tok(ro.hf.prompt_text(messages), add_special_tokens=False)["input_ids"]
    assert [v.status for v in verdicts] == ["ok", "incorrect", "format_error", "ok"], \
        [(v.status, v.feedback[:200]) for v in verdicts]
    trajs = [Trajectory(task=task.name, sample=i, turns=[Turn(
        index=0, messages=messages, completion=c, code=extract_code(c), verdict=v, prompt_ids=prompt,
        completion_ids=tok(c, add_special_tokens=False)["input_ids"][:64])])
        for i, (c, v) in enumerate(zip(completions, verdicts, strict=True))]
    before = policy.trainable_state()
    opt = build_optimizer(policy.trainable_parameters(), cfg.optim)
    m = train_on_groups(policy, opt, build_scheduler(opt, cfg.optim, 1),
                        [Group(task=task.name, trajectories=trajs)], cfg, "cpu")
    assert torch.isfinite(torch.tensor(m["loss"])) and m["grad_norm"] > 0
    after = policy.trainable_state()
    assert all(not torch.equal(before[k], after[k]) for k in before)


def test_tiny_model_from_config_trains_and_every_lora_parameter_moves(tmp_path, fenced):
    """configs/smoke_tiny_random.yaml as shipped (tiny model built from its `model.tiny` section, real
    prompts), with the rule-based reward so that advantages are non-zero."""
    from leap.trainer.checkpoint import seed_everything
    from leap.trainer.model import load_policy

    cfg = load_config(ROOT / "configs" / "smoke_tiny_random.yaml", [
        "steps=3", "rollout.sampling.max_new_tokens=12", "optim.lr=1e-2", f"logging.dir={tmp_path}/log",
        "logging.progress=false", f"checkpoint.dir={tmp_path}/ck"])
    seed_everything(cfg.seed)
    initial = load_policy(cfg.model, torch.device("cpu")).trainable_state()
    summary = loop.train(cfg, verifier=letter_early)
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    assert summary["step"] == 3 and len(rows) == 3
    assert all(r["loss"] is not None and abs(r["loss"]) < 1e3 and r["grad_norm"] >= 0 for r in rows)
    final = torch.load(tmp_path / "ck" / "step-3" / "trainable.pt")
    assert initial.keys() == final.keys() and any("lora_A" in k for k in final)
    still = [k for k in initial if torch.equal(initial[k], final[k])]
    assert not still, f"LoRA tensors that never moved: {still[:3]}"


def test_cli_train_with_real_sandbox_writes_metrics_and_checkpoint(tmp_path):
    from typer.testing import CliRunner

    from leap.cli.main import app

    args = ["train", "--config", str(ROOT / "configs" / "smoke_tiny_random.yaml"), "steps=1",
            "rollout.max_turns=2", "rollout.sampling.max_new_tokens=8", f"logging.dir={tmp_path}/log",
            "logging.progress=false", f"checkpoint.dir={tmp_path}/ck"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    assert len(rows) == 1 and rows[0]["groups"] == 2 and "time/generate" in rows[0]
    assert (tmp_path / "ck" / "step-1" / "trainable.pt").is_file()
    bad = CliRunner().invoke(app, ["train", "--config", str(ROOT / "configs" / "smoke_tiny_random.yaml"),
                                   "optim.lr=fast"])
    assert bad.exit_code == 2 and "smoke_tiny_random.yaml: optim.lr" in bad.output
