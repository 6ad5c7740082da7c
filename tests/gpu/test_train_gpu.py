"""Trainer on a CUDA GPU: bf16 + gradient checkpointing + LoRA on a tiny model (no weights needed), and
the real Qwen2.5-Coder-0.5B-Instruct for two steps + resume when ``LEAP_QWEN05B`` names its weights
(an HF directory or a .gguf file)."""

import math
import os
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.sandbox.verdict import Verdict  # noqa: E402
from leap.trainer import loop  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.logging import read_metrics  # noqa: E402

pytestmark = pytest.mark.gpu
ROOT = Path(__file__).resolve().parents[2]


def letter_early(task, completion, code):
    """Rule-based reward over the text (optimiser-path test only, not the sandbox)."""
    ok = any("a" <= ch <= "z" for ch in completion[:4])
    return Verdict(status="ok" if ok else "incorrect", correct=ok)


def test_tiny_bf16_gradient_checkpointing_on_cuda(tmp_path, monkeypatch):
    from leap.trainer import rollouts

    monkeypatch.setattr(rollouts, "_default_messages", lambda t, b: [{"role": "user", "content": "word"}])
    path = write_tiny_checkpoint(tmp_path / "tiny")
    cfg = load_config(None, [
        f"model.path={path}", "model.dtype=bfloat16", "model.gradient_checkpointing=true",
        "model.lora.targets=all-linear", "device=cuda", "rollout.tasks=relu_fp32", "rollout.group_size=8",
        "rollout.tasks_per_step=2", "rollout.max_turns=1", "rollout.sampling.max_new_tokens=6",
        "optim.lr=5e-2", "optim.grad_clip=0", "steps=8", f"logging.dir={tmp_path}/log",
        "logging.progress=false", f"checkpoint.dir={tmp_path}/ck"])
    loop.train(cfg, verifier=letter_early)
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    assert len(rows) == 8 and all(math.isfinite(r["loss"]) for r in rows)
    assert rows[-1]["acc/turn1"] > rows[0]["acc/turn1"]


@pytest.mark.skipif(not os.environ.get("LEAP_QWEN05B"), reason="set LEAP_QWEN05B to the 0.5B weights")
def test_qwen05b_real_sandbox_two_steps_then_resume(tmp_path):
    base = [f"model.path={os.environ['LEAP_QWEN05B']}", "rollout.tasks_per_step=2", "rollout.group_size=4",
            "rollout.sampling.max_new_tokens=384", f"logging.dir={tmp_path}/log", "logging.progress=false",
            f"checkpoint.dir={tmp_path}/ck", "checkpoint.every=1"]
    cfg = load_config(ROOT / "configs" / "qwen05b_h200.yaml", [*base, "steps=2"])
    first = loop.train(cfg)
    assert first["step"] == 2
    cfg3 = load_config(ROOT / "configs" / "qwen05b_h200.yaml", [*base, "steps=3"])
    second = loop.train(cfg3, resume=str(tmp_path / "ck"))
    rows = read_metrics(tmp_path / "log" / "metrics.jsonl")
    assert second["step"] == 3 and [r["step"] for r in rows] == [1, 2, 3]
    assert all(math.isfinite(r["loss"]) for r in rows if r.get("loss") is not None)
    assert all(r["tokens/completion"] > 0 and r["time/generate"] > 0 for r in rows)
    assert (tmp_path / "ck" / "step-3" / "adapter" / "adapter_config.json").is_file()
    assert torch.cuda.is_available()
