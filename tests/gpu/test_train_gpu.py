"""Trainer on a CUDA GPU. A tiny model (no weights needed) in bf16 with gradient checkpointing and LoRA
learns a rule over its text by a stated margin; with ``LEAP_MODEL_DIR`` set to a real checkpoint
(Qwen2.5-Coder-1.5B-Instruct, see `leap models fetch`), two LEAP steps against the real sandbox, then a
resume to step 3."""

import math
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import _fence, letter_early, short_prompt, write_tiny_checkpoint  # noqa: E402

from leap.trainer import loop  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.logging import read_metrics  # noqa: E402

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def short_fenced(monkeypatch):
    from leap.rollout import episode
    from leap.rollout.policies.hf import HFPolicy

    original = HFPolicy.generate
    monkeypatch.setattr(HFPolicy, "generate", lambda self, prompts, params: _fence(original(self, prompts, params)))
    monkeypatch.setattr(episode, "build_messages", short_prompt)


@pytest.mark.parametrize("seed", [0, 1])
def test_tiny_bf16_gradient_checkpointing_learns_on_cuda(tmp_path, short_fenced, seed):
    path = write_tiny_checkpoint(tmp_path / "tiny")
    cfg = load_config(None, [
        f"model.path={path}", "model.dtype=bfloat16", "model.gradient_checkpointing=true", "model.lora.rank=8",
        "model.lora.targets=all-linear", "device=cuda", "rollout.tasks=builtin:train",
        "rollout.task_filter=[relu_fp32, add_fp32, sigmoid_fp32]", "rollout.group_size=8",
        "rollout.tasks_per_step=4", "rollout.max_turns=1", "rollout.sampling.max_new_tokens=6",
        "optim.lr=1e-1", "optim.grad_clip=0", "optim.micro_batch_size=16", "steps=20", f"seed={seed}",
        f"logging.dir={tmp_path}/log", "logging.progress=false", f"checkpoint.dir={tmp_path}/ck",
        "checkpoint.every=0"])
    loop.train(cfg, verifier=letter_early)
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    acc = [r["acc/turn1"] for r in rows]
    assert len(rows) == 20 and all(math.isfinite(r["loss"]) for r in rows)
    # the CPU learning test's margin (tests/integration/test_train_loop.py), over 20 steps: 10 left seed 0
    # short of it on the H200 (2026-12-03: 0.44 against 0.45 needed); on the CPU every seed is at ~1.0 by step 10
    assert sum(acc[-5:]) / 5 >= sum(acc[:3]) / 3 + 0.15, acc


@pytest.mark.skipif(not os.environ.get("LEAP_MODEL_DIR"), reason="LEAP_MODEL_DIR (a real model's folder) not set")
def test_real_model_real_sandbox_two_steps_then_resume(tmp_path):
    config = Path(os.environ.get("LEAP_TRAIN_CONFIG", ROOT / "configs" / "qwen15b_h200.yaml"))
    base = [f"model.path={os.environ['LEAP_MODEL_DIR']}", "rollout.tasks_per_step=2", "rollout.group_size=4",
            "rollout.sampling.max_new_tokens=384", f"logging.dir={tmp_path}/log", "logging.progress=false",
            f"checkpoint.dir={tmp_path}/ck", "checkpoint.every=1"]
    first = loop.train(load_config(config, [*base, "steps=2"]))
    assert first["step"] == 2
    second = loop.train(load_config(config, [*base, "steps=3"]), resume=str(tmp_path / "ck"))
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    assert second["step"] == 3 and [r["step"] for r in rows] == [1, 2, 3]
    assert all(math.isfinite(r["loss"]) for r in rows if r.get("loss") is not None)
    assert all(r["tokens/completion"] > 0 and r["time/generate"] > 0 and r["time/sandbox"] > 0 for r in rows)
    assert (tmp_path / "ck" / "step-3" / "adapter" / "adapter_config.json").is_file()
