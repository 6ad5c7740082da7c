"""``rollout.backend: openai`` on a GPU without vLLM: `leap serve --enable-lora --device cuda` beside the
trainer on the same GPU, two LEAP steps whose samples come from the adapter being trained. The tiny
EOS-biased model of the CPU test by default; ``LEAP_MODEL_DIR`` (e.g. Qwen2.5-Coder-0.5B-Instruct from
`leap models fetch`) runs the same on a real model with the real prompts."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import httpx
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration"))
from loopback import leap_server  # noqa: E402
from test_rollout_backends import _eos_biased_checkpoint, _short_prompt  # noqa: E402

from leap.trainer import loop  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.logging import read_metrics  # noqa: E402

# marks, not a module-level skip: under `-m "not gpu"` the file is deselected, not reported as skipped
pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")]


def test_two_steps_with_leap_serve_on_cuda_follow_the_adapter(tmp_path):
    real = os.environ.get("LEAP_MODEL_DIR")
    model = Path(real) if real else _eos_biased_checkpoint(tmp_path / "model")
    with leap_server(["serve", str(model), "--device", "cuda", "--dtype", "float32", "--name", "base",
                      "--enable-lora", "--max-loras", "2"], tmp_path / "serve_stderr.log", tries=900) as (base, _):
        # fp32 on both sides so the log-prob comparison measures the adapter, not bf16 rounding
        cfg = load_config(None, [
            f"model.path={model}", "model.dtype=float32", "model.lora.rank=8", "model.lora.targets=all-linear",
            "device=cuda", "rollout.backend=openai", f"rollout.server.url={base}/v1",
            "rollout.tasks=builtin:train", "rollout.task_filter=[relu_fp32, add_fp32]", "rollout.group_size=4",
            "rollout.tasks_per_step=2", "rollout.max_turns=1",
            f"rollout.sampling.max_new_tokens={256 if real else 16}", "rollout.sandbox_workers=2",
            "reward.token_unsolved=true", "reward.token_margin=0.0", f"optim.lr={1e-4 if real else 5e-2}",
            "optim.grad_clip=0", "steps=2", f"output_dir={tmp_path}", "logging.progress=false", "checkpoint.every=0"])
        summary = loop.train(cfg, prompt_fn=None if real else _short_prompt)
        health = httpx.get(base + "/health").json()
    assert summary["step"] == 2 and health["lora_loads"] == 2 and health["lora_adapters"] == []
    rows = read_metrics(tmp_path / "metrics.jsonl")
    gaps = [r["sampler/logprob_gap"] for r in rows]
    # the server is an HFPolicy in fp32 on another CUDA context: kernels differ slightly from the trainer's
    assert all(g < 1e-2 for g in gaps), gaps
    assert all(torch.isfinite(torch.tensor(r["loss"])) for r in rows)
