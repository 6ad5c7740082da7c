"""Tiny random-weight chat models built offline (tests, demos, the CPU trainer).

``build_tiny_tokenizer()`` trains a small byte-level BPE on a built-in corpus (kernel code and prompt
text) and wraps it in ``PreTrainedTokenizerFast`` with a ChatML chat template; any text round-trips.
``build_tiny_model(tokenizer)`` makes a Qwen2 causal LM (2 layers, hidden 64 by default) with random
weights. ``save_tiny(dir)`` writes both as a normal transformers folder.
"""

from __future__ import annotations

from pathlib import Path

CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)
SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def _corpus() -> list[str]:
    from leap.rollout.prompts import BACKENDS, SYSTEM, example_solution, example_task_source
    from leap.tasks.suite import builtin_tasks

    texts = [SYSTEM, example_task_source()] + [example_solution(b) for b in BACKENDS]
    texts += [t.source for t in builtin_tasks()][:40]
    texts += ["class ModelNew(nn.Module):\n", "@triton.jit\n", "tl.program_id(0)"]
    return texts


def build_tiny_tokenizer(vocab_size: int = 512):
    """A byte-level BPE tokenizer with ChatML special tokens and chat template (offline, ~1 s)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=SPECIAL, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(_corpus(), trainer=trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                   bos_token=None, unk_token=None, padding_side="left")
    fast.chat_template = CHATML
    return fast


def build_tiny_model(tokenizer, *, layers: int = 2, hidden: int = 64, heads: int = 4, kv_heads: int = 2,
                     seed: int = 0, max_positions: int = 4096):
    """A random-weight Qwen2 causal LM sized for ``tokenizer`` (fp32, eval mode)."""
    import torch
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(vocab_size=len(tokenizer), hidden_size=hidden, intermediate_size=hidden * 2,
                      num_hidden_layers=layers, num_attention_heads=heads, num_key_value_heads=kv_heads,
                      max_position_embeddings=max_positions, tie_word_embeddings=True,
                      eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id,
                      bos_token_id=None)
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(cfg).eval()
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    return model


def save_tiny(out: str | Path, **model_kwargs) -> Path:
    """Build a tiny tokenizer + model and save them as a transformers folder; returns the folder."""
    out = Path(out)
    tok = build_tiny_tokenizer()
    model = build_tiny_model(tok, **model_kwargs)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tok.save_pretrained(out)
    return out
