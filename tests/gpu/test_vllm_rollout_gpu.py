"""``rollout.backend: vllm`` on a GPU (needs the vllm package; skipped without it): two LEAP steps whose
samples come from an in-process ``vllm.LLM`` given the trained adapter as a new ``LoRARequest`` each step.

The model is built from a config (Qwen2 architecture, head size 64 so vLLM's attention kernels take it,
random weights, byte-level tokenizer); nothing is downloaded. Run on a GPU machine with vllm installed:
``pytest -q -m gpu tests/gpu/test_vllm_rollout_gpu.py``.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
import torch

# marks, not a module-level skip: under `-m "not gpu"` the file is deselected, not reported as skipped
pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(importlib.util.find_spec("vllm") is None, reason="the vllm package is not installed"),
              pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA GPU")]


def _checkpoint(path: Path) -> Path:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    vocab = {ch: i for i, ch in enumerate(sorted(pre_tokenizers.ByteLevel.alphabet()))}
    for special in ("<|endoftext|>", "<|pad|>"):
        vocab[special] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|endoftext|>", pad_token="<|pad|>")
    tok.chat_template = ("{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}\n{% endfor %}"
                         "{% if add_generation_prompt %}<assistant>{% endif %}")
    cfg = Qwen2Config(vocab_size=len(vocab), hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                      tie_word_embeddings=False, eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    Qwen2ForCausalLM(cfg).save_pretrained(path)
    tok.save_pretrained(path)
    return path


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
