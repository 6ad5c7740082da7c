"""A tiny Qwen2-architecture checkpoint on disk (byte-level tokenizer, random weights), for trainer tests
of the ``model.path`` loading branch. Built once per session; no download."""

from __future__ import annotations

from pathlib import Path

from leap.sandbox.judge.verdict import Verdict


def write_tiny_checkpoint(path: Path, seed: int = 0, *, hidden: int = 32, intermediate: int = 64,
                          tie: bool = True, initializer_range: float = 0.2) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    alphabet = pre_tokenizers.ByteLevel.alphabet()
    vocab = {ch: i for i, ch in enumerate(sorted(alphabet))}
    for special in ("<|endoftext|>", "<|pad|>"):
        vocab[special] = len(vocab)
    core = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    tok = PreTrainedTokenizerFast(tokenizer_object=core, eos_token="<|endoftext|>", pad_token="<|pad|>")
    tok.chat_template = ("{% for m in messages %}<{{ m['role'] }}>{{ m['content'] }}\n{% endfor %}"
                         "{% if add_generation_prompt %}<assistant>{% endif %}")
    cfg = Qwen2Config(vocab_size=len(vocab), hidden_size=hidden, intermediate_size=intermediate, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=2048,
                      tie_word_embeddings=tie, initializer_range=initializer_range, eos_token_id=tok.eos_token_id,
                      pad_token_id=tok.pad_token_id)
    torch.manual_seed(seed)
    model = Qwen2ForCausalLM(cfg)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def letter_rule(text: str) -> Verdict:
    ok = any("a" <= ch <= "z" for ch in text[:4])
    return Verdict(status="ok" if ok else "incorrect", correct=ok,
                   feedback="" if ok else "Start with a lowercase letter.")


def letter_early(pairs):
    """LEARNING-TEST REWARD (not the sandbox): a real rule over the generated text — correct iff one of
    the first 4 characters is a lowercase ASCII letter (about 1 in 3 for the untrained tiny model).
    It tests the optimiser path (sampling -> tournament -> credit -> loss -> update), nothing else.
    (`short_prompts` fences completions so the runner hands the whole text to the rule as "code".)"""
    return [letter_rule(code[1:]) for _, code in pairs]


def short_prompt(task, backend):
    return [{"role": "user", "content": "word"}]


def _fence(gens):
    for g in gens:
        g.text = "```python\n|" + g.text.replace("`", "'") + "|\n```"  # "|": keep edge whitespace
    return gens
