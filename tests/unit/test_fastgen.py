"""The static-cache decode loop (eager on the CPU): exactness against a full forward and `generate`,
and the device-side sampler's distribution."""

from __future__ import annotations

import pytest
import torch

from leap.rollout.policies import SamplingParams
from leap.rollout.policies.fastgen import StaticDecoder, sample_next
from leap.rollout.policies.hf import HFPolicy


@pytest.fixture(scope="module")
def tiny():
    from leap.models.tiny import build_tiny_model, build_tiny_tokenizer

    tok = build_tiny_tokenizer()
    return build_tiny_model(tok), tok


def _teacher_forced(model, enc, tokens, temperature=1.0):
    full = torch.cat([enc.input_ids, tokens], 1)
    am = torch.cat([enc.attention_mask, torch.ones_like(tokens)], 1)
    pos = (am.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        lg = model(input_ids=full, attention_mask=am, position_ids=pos).logits.float() / temperature
    width = enc.input_ids.shape[1]
    return torch.log_softmax(lg[:, width - 1:-1], -1).gather(-1, tokens[..., None]).squeeze(-1)


def test_decode_logprobs_match_full_forward(tiny):
    model, tok = tiny
    enc = tok(["hi", "a much longer prompt with many more tokens in it"], return_tensors="pt", padding=True)
    out = StaticDecoder(model, use_graph=False).generate(enc.input_ids, enc.attention_mask, 10, temperature=0.8,
                                                          eos_ids=[], pad_id=tok.pad_token_id, seed=3)
    assert out.tokens.shape == (2, 10) and out.lengths.tolist() == [10, 10]
    assert len(set(out.tokens[0].tolist())) > 3  # really sampled
    ref = _teacher_forced(model, enc, out.tokens, 0.8)
    assert torch.allclose(ref, out.logprobs, atol=1e-4)


def test_greedy_matches_generate_and_policy(tiny):
    model, tok = tiny
    msgs = [[{"role": "user", "content": "relu"}], [{"role": "user", "content": "a longer prompt, padded less"}]]
    p = SamplingParams(max_new_tokens=8, temperature=0.0, logprobs=True)
    a = HFPolicy(tiny, cache="graph").generate(msgs, p)
    b = HFPolicy(tiny, cache="dynamic").generate(msgs, p)
    assert [g.completion_ids for g in a] == [g.completion_ids for g in b]
    for x, y in zip(a, b, strict=True):
        assert x.logprobs == pytest.approx(y.logprobs, abs=1e-4)


def test_eos_stops_and_pads():
    logits = torch.tensor([[0.0, 5.0, 0.0], [5.0, 0.0, 0.0]])
    tok, lp = sample_next(logits, 0.0, 0, 1.0)
    assert tok.tolist() == [1, 0] and (lp < 0).all()


def test_sampler_distribution_topk_topp():
    torch.manual_seed(0)
    logits = torch.log(torch.tensor([0.5, 0.3, 0.15, 0.05]))[None].repeat(40000, 1)
    tok, _ = sample_next(logits, 1.0, 0, 1.0)
    freq = torch.bincount(tok, minlength=4).float() / tok.numel()
    assert torch.allclose(freq, torch.tensor([0.5, 0.3, 0.15, 0.05]), atol=0.01)
    tok, _ = sample_next(logits, 1.0, 2, 1.0)
    freq = torch.bincount(tok, minlength=4).float() / tok.numel()
    assert freq[2:].sum() == 0 and abs(freq[0] - 0.625) < 0.01
    tok, _ = sample_next(logits, 1.0, 0, 0.7)  # nucleus {0, 1}: cumsum before 1 is 0.5 <= 0.7
    freq = torch.bincount(tok, minlength=4).float() / tok.numel()
    assert freq[2:].sum() == 0 and abs(freq[0] - 0.625) < 0.01
    tok, _ = sample_next(logits[:5], 1.0, 1, 1.0)
    assert tok.tolist() == [0] * 5


def test_decoder_eos_lengths_and_padding(tiny):
    model, tok = tiny
    enc = tok(["hi there"], return_tensors="pt", padding=True)
    dec = StaticDecoder(model, use_graph=False, check_every=2)
    free = dec.generate(enc.input_ids, enc.attention_mask, 8, temperature=1.0, eos_ids=[], pad_id=0, seed=5)
    seq = free.tokens[0].tolist()
    eos = seq[3]
    first = seq.index(eos)
    out = dec.generate(enc.input_ids, enc.attention_mask, 8, temperature=1.0, eos_ids=[eos], pad_id=0, seed=5)
    assert out.lengths.tolist() == [first + 1]
    assert out.tokens[0, :first + 1].tolist() == seq[:first + 1]
    assert out.tokens[0, first + 1:].tolist() == [0] * (7 - first)


def test_packed_gqa_decode_is_exact_and_restores_attention(tiny, monkeypatch):
    """Decode steps fold the query heads onto their KV head (no repeated cache): same tokens and
    log-probabilities as transformers' SDPA, the packed function really runs, and the model's
    attention setting is back to SDPA afterwards."""
    from leap.models.tiny import build_tiny_model
    from leap.rollout.policies import fastgen

    _, tok = tiny
    model = build_tiny_model(tok, hidden=96, heads=6, kv_heads=2, seed=1)  # 3 query heads per KV head
    assert model.config._attn_implementation == "sdpa"
    calls = []
    real = fastgen.packed_gqa_attention

    def counted(module, query, *a, **kw):
        calls.append(tuple(query.shape))
        return real(module, query, *a, **kw)

    monkeypatch.setattr(fastgen, "packed_gqa_attention", counted)
    enc = tok(["hi", "a much longer prompt with many more tokens in it"], return_tensors="pt", padding=True)
    args = dict(temperature=0.9, eos_ids=[], pad_id=tok.pad_token_id, seed=11)
    packed = StaticDecoder(model, use_graph=False).generate(enc.input_ids, enc.attention_mask, 12, **args)
    assert calls and all(s[2] == 1 and s[1] == 6 for s in calls)  # decode steps only, one query token
    assert model.config._attn_implementation == "sdpa"
    n = len(calls)
    plain = StaticDecoder(model, use_graph=False, packed_gqa=False).generate(enc.input_ids, enc.attention_mask, 12,
                                                                            **args)
    assert len(calls) == n  # the baseline never used it
    assert torch.equal(packed.tokens, plain.tokens)
    assert torch.allclose(packed.logprobs, plain.logprobs, atol=1e-5)
    ref = _teacher_forced(model, enc, packed.tokens, 0.9)
    assert torch.allclose(ref, packed.logprobs, atol=1e-4)


def test_packed_gqa_matches_repeated_kv_attention():
    """The attention function alone, against SDPA on explicitly repeated KV heads, with a padding mask."""
    from types import SimpleNamespace

    from leap.rollout.policies.fastgen import packed_gqa_attention

    torch.manual_seed(0)
    b, heads, kv, d, length = 3, 12, 2, 16, 37
    q, k, v = torch.randn(b, heads, 1, d), torch.randn(b, kv, length, d), torch.randn(b, kv, length, d)
    mask = torch.zeros(b, 1, 1, length)
    mask[0, ..., :5] = torch.finfo(torch.float32).min  # left padding of row 0
    out, _ = packed_gqa_attention(SimpleNamespace(num_key_value_groups=heads // kv), q, k, v, mask, scaling=0.25)
    rep = heads // kv
    ref = torch.nn.functional.scaled_dot_product_attention(q, k.repeat_interleave(rep, 1), v.repeat_interleave(rep, 1),
                                                           attn_mask=mask, scale=0.25)
    assert out.shape == (b, 1, heads, d)
    assert torch.allclose(out, ref.transpose(1, 2), atol=1e-5)


def test_decode_trace_lines(tiny, tmp_path, monkeypatch):
    """LEAP_DECODE_TRACE appends one line per generate call with the step count and timings."""
    import json

    model, tok = tiny
    trace = tmp_path / "decode.jsonl"
    monkeypatch.setenv("LEAP_DECODE_TRACE", str(trace))
    enc = tok(["hi", "a longer prompt here"], return_tensors="pt", padding=True)
    dec = StaticDecoder(model, use_graph=False, check_every=2)
    for n in (6, 9):
        dec.generate(enc.input_ids, enc.attention_mask, n, temperature=1.0, eos_ids=[], pad_id=0, seed=1)
    rows = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [r["decode_steps"] for r in rows] == [5, 8] and [r["mean_new_tokens"] for r in rows] == [6.0, 9.0]
    assert all(r["batch"] == 2 and r["prompt_width"] == enc.input_ids.shape[1] for r in rows)
    assert all(r["prefill_s"] >= 0 and r["decode_s"] > 0 and r["packed_gqa"] for r in rows)
