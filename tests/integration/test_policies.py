"""Policy backends on a tiny random Qwen2 model: HF in-process, `leap serve` + OpenAI client on loopback."""

from __future__ import annotations

import socket
import subprocess
import sys
import threading

import pytest

from leap.rollout.policies import PolicyError, SamplingParams, load_policy
from leap.rollout.policies.hf import HFPolicy
from leap.rollout.policies.openai_client import OpenAIPolicy
from leap.rollout.server import make_server

MSGS = [[{"role": "user", "content": "write relu"}],
        [{"role": "system", "content": "s"}, {"role": "user", "content": "a much longer prompt with many tokens"}]]
GREEDY = SamplingParams(max_new_tokens=12, temperature=0.0, logprobs=True)


@pytest.fixture(scope="module")
def tiny():
    from leap.models.tiny import build_tiny_model, build_tiny_tokenizer

    tok = build_tiny_tokenizer()
    return build_tiny_model(tok), tok


@pytest.fixture(scope="module")
def server(tiny):
    srv = make_server(HFPolicy(tiny, cache="dynamic"), "127.0.0.1", 0, model_name="tiny")
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_port}/v1"
    srv.shutdown()


def test_hf_static_matches_dynamic_and_padding(tiny):
    dyn = HFPolicy(tiny, cache="dynamic").generate(MSGS, GREEDY)
    sta = HFPolicy(tiny, cache="static").generate(MSGS, GREEDY)
    single = HFPolicy(tiny, cache="dynamic").generate(MSGS[1:], GREEDY)
    assert [g.completion_ids for g in dyn] == [g.completion_ids for g in sta]
    assert dyn[1].completion_ids == single[0].completion_ids  # left padding does not change the answer
    tok = tiny[1]
    for g, m in zip(dyn, MSGS, strict=True):
        assert g.prompt_ids == tok(tok.apply_chat_template(m, tokenize=False, add_generation_prompt=True),
                                   add_special_tokens=False)["input_ids"]
        assert 1 <= len(g.completion_ids) <= 12 and len(g.logprobs) == len(g.completion_ids)
        assert all(lp <= 0 for lp in g.logprobs)
        assert g.completion_tokens == len(g.completion_ids)


def test_hf_sampling_seed_and_stop(tiny):
    pol = HFPolicy(tiny, cache="dynamic")
    p = SamplingParams(max_new_tokens=16, temperature=1.0, seed=3)
    a, b = pol.generate(MSGS, p), pol.generate(MSGS, p)
    assert [g.text for g in a] == [g.text for g in b]
    c = pol.generate(MSGS, SamplingParams(max_new_tokens=16, temperature=1.0, seed=4))
    assert [g.completion_ids for g in a] != [g.completion_ids for g in c]
    text = a[0].text
    stop = next((ch for ch in text[2:] if ch.isascii() and ch.isalnum()), None)
    if stop:
        s = pol.generate(MSGS, SamplingParams(max_new_tokens=16, temperature=1.0, seed=3, stop=(stop,)))[0]
        assert stop not in s.text and text.startswith(s.text) and s.finish_reason == "stop"


def test_hf_bad_path_one_line(tmp_path):
    with pytest.raises(PolicyError, match="not a transformers model folder"):
        load_policy("hf", str(tmp_path / "nope"))


def test_openai_client_against_leap_server(server, tiny):
    pol = OpenAIPolicy(server, concurrency=4)
    assert pol.name == "tiny"
    gens = pol.generate(MSGS * 3, GREEDY)
    direct = HFPolicy(tiny, cache="dynamic").generate(MSGS, GREEDY)
    assert [g.text for g in gens] == [g.text for g in direct] * 3
    assert gens[0].completion_ids == direct[0].completion_ids
    assert gens[0].completion_tokens == len(direct[0].completion_ids) and gens[0].prompt_tokens > 0
    assert len(gens[1].logprobs) == len(direct[1].completion_ids)


def test_stream_true_answers_openais_event_stream(server, tiny):
    """``stream: true`` (what verifiers' interception and most chat clients send) gets OpenAI's SSE chunks
    carrying the same text as the plain answer; the official ``openai`` client reads them."""
    import json

    import httpx

    body = {"messages": MSGS[0], "max_tokens": 12, "temperature": 0.0, "stream": True,
            "stream_options": {"include_usage": True}}
    plain = httpx.post(server + "/chat/completions", json={**body, "stream": False}, timeout=60).json()
    with httpx.stream("POST", server + "/chat/completions", json=body, timeout=60) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        events = [line[len("data: "):] for line in r.iter_lines() if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    chunks = [json.loads(e) for e in events[:-1]]
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    text = "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"])
    assert text == plain["choices"][0]["message"]["content"]
    assert [c["choices"][0]["finish_reason"] for c in chunks if c["choices"]][-1] == plain["choices"][0]["finish_reason"]
    assert chunks[-1]["usage"] == plain["usage"]
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=server, api_key="x")
    streamed = client.chat.completions.create(model="tiny", messages=MSGS[0], max_tokens=12, temperature=0.0,
                                              stream=True)
    assert "".join(c.choices[0].delta.content or "" for c in streamed if c.choices) == text


def test_server_rejects_bad_request(server):
    import json
    import urllib.error
    import urllib.request

    req = urllib.request.Request(server + "/chat/completions", data=json.dumps({"messages": "hi"}).encode(),
                                 headers={"Content-Type": "application/json"}, method="POST")
    with pytest.raises(urllib.error.HTTPError) as err:
        urllib.request.urlopen(req, timeout=10)
    assert err.value.code == 400 and "messages" in err.value.read().decode()
    pol = OpenAIPolicy(server, retries=1)
    with pytest.raises(PolicyError, match="HTTP 400"):
        pol.generate([[{"role": "user", "content": "x"}]], SamplingParams(max_new_tokens=0))


def test_openai_unreachable_is_one_line():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(PolicyError, match="unreachable") as err:
        OpenAIPolicy(f"http://127.0.0.1:{port}/v1", connect_timeout=2)
    assert "\n" not in str(err.value)
    with pytest.raises(PolicyError, match="not an http"):
        OpenAIPolicy("localhost:1")


def test_vllm_absent_is_clear():
    try:
        import vllm  # noqa: F401
        pytest.skip("vllm is installed")
    except ImportError:
        pass
    with pytest.raises(PolicyError, match="needs the vllm package"):
        load_policy("vllm", "x")


def test_leap_serve_bad_model_exits_2(tmp_path):
    r = subprocess.run([sys.executable, "-c", "from leap.cli.main import app; app()", "serve", str(tmp_path)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "config.json" in r.stderr
