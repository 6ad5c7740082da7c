"""HFPolicy(cache="static"): one failed generation (a huge request) does not poison the next ones."""

from __future__ import annotations

import pytest

from leap.rollout.policies import SamplingParams
from leap.rollout.policies.hf import HFPolicy

MSG = [[{"role": "user", "content": "write relu"}]]


@pytest.fixture(scope="module")
def tiny():
    from leap.models.tiny import build_tiny_model, build_tiny_tokenizer

    tok = build_tiny_tokenizer()
    return build_tiny_model(tok, hidden=32, max_positions=128), tok


def test_huge_request_fails_cleanly_and_next_small_request_works(tiny):
    model, tok = tiny
    pol = HFPolicy((model, tok), cache="static")
    small = SamplingParams(max_new_tokens=4, temperature=0.0)
    before = pol.generate(MSG, small)[0].completion_ids
    model.config.max_position_embeddings = 2**45  # the context check lets it through: the allocation fails
    try:
        with pytest.raises((RuntimeError, MemoryError)):
            pol.generate(MSG, SamplingParams(max_new_tokens=2**44, temperature=0.0))
        # without the reset transformers keeps the huge static-cache length and every call fails the same way
        assert "_previous_max_cache_length" not in model.__dict__
        assert pol.generate(MSG, small)[0].completion_ids == before
    finally:
        model.config.max_position_embeddings = 128


def test_context_checks(tiny):
    model, tok = tiny
    pol = HFPolicy((model, tok), cache="static")
    assert pol.context_length == 128 and 0 < pol.prompt_tokens(MSG[0]) < 128
    # a prompt that does not fit is left unanswered; the others in the same call are still generated
    long_ = [{"role": "user", "content": "x " * 400}]
    outs = pol.generate([long_, MSG[0]], SamplingParams(max_new_tokens=2, temperature=0.0))
    assert outs[0].text == "" and outs[0].finish_reason == "context" and outs[0].prompt_tokens >= 128
    assert outs[1].completion_tokens >= 1
    g = pol.generate(MSG, SamplingParams(max_new_tokens=10**6, temperature=0.0))[0]  # capped at the context
    assert g.prompt_tokens + g.completion_tokens <= 128 and g.completion_tokens >= 1
    assert pol.generate(MSG, SamplingParams(max_new_tokens=3, temperature=0.0))[0].completion_tokens <= 3
