"""``rollout.backend: vllm`` on a GPU (needs the vllm package; skipped without it): two LEAP steps whose
samples come from an in-process ``vllm.LLM`` given the trained adapter as a new ``LoRARequest`` each step.

The model is built from a config (Qwen2 architecture, head size 64 so vLLM's attention kernels take it,
random weights, byte-level tokenizer); nothing is downloaded. Run on a GPU machine with vllm installed:
``pytest -q -m gpu tests/gpu/test_vllm_rollout_gpu.py``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "unit"))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

# marks, not a module-level skip: under `-m "not gpu"` the file is deselected, not reported as skipped
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="the vllm package is not installed"),
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")]


def _checkpoint(path: Path) -> Path:
    """The trainer tests' tiny checkpoint, wider and untied (Qwen2's default init) for vLLM's kernels."""
    return write_tiny_checkpoint(path, hidden=256, intermediate=512, tie=False, initializer_range=0.02)


def _short_prompt(task, turns):
    return [{"role": "user", "content": f"Write {task.name} as ModelNew with a Triton kernel."}]


def test_two_steps_with_vllm_follow_the_adapter(tmp_path):
    from safetensors.torch import load_file

    from leap.trainer import loop
    from leap.trainer.config import load_config
    from leap.trainer.logging import read_metrics

    path = _checkpoint(tmp_path / "model")
    cfg = load_config(None, [
        f"model.path={path}", "model.dtype=float32", "model.lora.rank=8", "model.lora.targets=all-linear",
        "device=cuda", "rollout.backend=vllm", "rollout.vllm.dtype=float32", "rollout.vllm.enforce_eager=true",
        "rollout.vllm.gpu_memory_utilization=0.3", "rollout.vllm.max_model_len=1024",
        "rollout.tasks=builtin:train", "rollout.task_filter=[relu_fp32, add_fp32]", "rollout.group_size=4",
        "rollout.tasks_per_step=2", "rollout.max_turns=1", "rollout.sampling.max_new_tokens=16",
        "rollout.max_context_tokens=1024", "reward.token_unsolved=true", "reward.token_margin=0.0",
        "optim.lr=5e-2", "optim.grad_clip=0", "steps=2", f"output_dir={tmp_path}", "logging.progress=false",
        "checkpoint.every=0"])
    seen = {}

    def on_step(step, metrics, groups):
        seen[step] = load_file(tmp_path / "rollout_adapters" / f"leap-r0-step{step - 1}" / "adapter_model.safetensors")
        assert all(t.completion_ids and t.completion_logprobs for g in groups for tr in g.trajectories
                   for t in tr.turns)

    assert loop.train(cfg, prompt_fn=_short_prompt, on_step=on_step)["step"] == 2
    rows = read_metrics(tmp_path / "metrics.jsonl")
    assert [k for k in seen[1] if not torch.equal(seen[1][k], seen[2][k])], "the step-2 adapter equals step 1's"
    # vLLM's log-probs of its own samples against the trainer's (both fp32; temperature 1, so vLLM's raw
    # log-probs are the trainer's convention): the engine generated with the current adapter
    gaps = [r["sampler/logprob_gap"] for r in rows]
    assert all(g < 5e-2 for g in gaps), gaps
