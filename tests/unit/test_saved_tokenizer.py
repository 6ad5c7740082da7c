"""A demo policy saved by LEAP loads with its own tokenizer (transformers' AutoTokenizer would rebuild
Qwen2's and change every token id), and `leap eval --prompt demo` renders exactly the demo's prompt."""

from __future__ import annotations

from leap.demo.episodes import chat_prompt_fn, spec_from_source
from leap.demo.family import compact_spec, make_task
from leap.demo.policy import (
    TinyConfig,
    TinyPolicy,
    build_model,
    build_prompt,
    first_sentence,
    train_tokenizer,
)
from leap.models.tokenizer import load_tokenizer
from leap.rollout.policies.hf import load_hf
from leap.rollout.records import Turn
from leap.sandbox import Verdict


def _saved_policy(tmp_path):
    texts = [build_prompt(compact_spec(c)) + "```python\nimport torch\n```\n"
             for c in (["relu"], ["add0.5", "sigmoid", "mul0.5"], ["sin", "abs"])] * 20
    tok = train_tokenizer(texts, vocab_size=300)
    policy = TinyPolicy(tok, build_model(TinyConfig(hidden=32, layers=1, heads=2), tok.get_vocab_size()))
    policy.save(tmp_path / "p")
    return policy, tmp_path / "p"


def test_saved_demo_tokenizer_keeps_its_token_ids(tmp_path):
    policy, path = _saved_policy(tmp_path)
    text = build_prompt("x = x + 0.5\nx = torch.sigmoid(x)\nx = x * 0.5")
    want = policy.encode(text)
    assert load_tokenizer(path)(text, add_special_tokens=False)["input_ids"] == want
    _, tok = load_hf(path, device="cpu")  # the path `leap eval --backend hf` takes
    assert tok(text, add_special_tokens=False)["input_ids"] == want


def test_demo_prompt_mode_renders_the_training_layout(tmp_path):
    _, path = _saved_policy(tmp_path)
    _, tok = load_hf(path, device="cpu")
    chain = ["add0.5", "sigmoid", "mul0.5"]
    task = make_task(chain, "eval")
    spec = spec_from_source(task.source)
    assert spec == compact_spec(chain)
    fn = chat_prompt_fn({task.name: spec})
    first = tok.apply_chat_template(fn(task, []), tokenize=False, add_generation_prompt=True)
    assert first == build_prompt(spec)
    verdict = Verdict(status="incorrect", feedback="Output mismatch: 3 of 10 values differ. More text.")
    turn = Turn(index=0, messages=[], completion="```python\nx\n```", code="x = 1", verdict=verdict)
    later = tok.apply_chat_template(fn(task, [turn]), tokenize=False, add_generation_prompt=True)
    assert later == build_prompt(spec, [("x = 1", verdict.feedback)])
    assert first_sentence(verdict.feedback) in later
