"""`leap serve` as a real process on loopback with a tiny model: hostile requests get the right status and
leave the server healthy; 50 concurrent requests get 200 or 429, no resets, memory back near its start."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import httpx
import pytest
from loopback import leap_server

from leap.rollout.serve_load import run_load

SMALL = {"model": "tiny", "messages": [{"role": "user", "content": "write relu"}], "max_tokens": 4,
         "temperature": 0.0}


def _rss_kb(pid: int) -> int:
    return int(re.search(r"VmRSS:\s+(\d+)", Path(f"/proc/{pid}/status").read_text()).group(1))


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    from leap.models.tiny import save_tiny

    model = save_tiny(tmp_path_factory.mktemp("tiny") / "tiny", max_positions=512)
    with leap_server(["serve", str(model), "--device", "cpu", "--name", "tiny", "--max-queue", "16",
                      "--max-batch", "8", "--max-body", "65536", "--body-timeout", "1", "--cache", "dynamic"],
                     tmp_path_factory.mktemp("serve") / "stderr.log") as (base, proc):
        yield base, proc


def _healthy(base: str) -> None:
    assert httpx.get(base + "/health", timeout=30).json()["status"] == "ok"
    r = httpx.post(base + "/v1/chat/completions", json=SMALL, timeout=120)
    assert r.status_code == 200 and r.json()["choices"][0]["finish_reason"] in ("stop", "length")


def _raw(base: str, data: bytes, wait: float = 10.0) -> str:
    host, port = base.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as s:
        s.sendall(data)
        return s.recv(65536).decode(errors="replace")


def test_hostile_requests(served):
    base, _ = served
    _healthy(base)
    cases = [
        ({**SMALL, "max_tokens": 10**9}, 400, "invalid_request_error", "context"),
        ({**SMALL, "model": "gpt-9"}, 404, "invalid_request_error", "not served"),
        ({**SMALL, "messages": [{"role": "user", "content": "x" * 200_000}]}, 413, "invalid_request_error", "limit"),
        ({**SMALL, "messages": [{"role": "user", "content": "ab " * 600}]}, 400, "invalid_request_error", "context"),
        ({**SMALL, "messages": "nope"}, 400, "invalid_request_error", "messages"),
    ]
    for body, status, kind, words in cases:
        r = httpx.post(base + "/v1/chat/completions", json=body, timeout=60)
        assert r.status_code == status, (body.get("max_tokens"), r.text[:300])
        err = r.json()["error"]
        assert err["type"] == kind and words in err["message"] and "\n" not in err["message"]
        _healthy(base)
    # a body that stops arriving: 408 after --body-timeout
    head = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
    answer = _raw(base, head + b'{"mess')
    assert answer.startswith("HTTP/1.1 408"), answer[:200]
    _healthy(base)
    # a negative length is refused at once (no hang)
    answer = _raw(base, b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n{}")
    assert answer.startswith("HTTP/1.1 400"), answer[:200]
    _healthy(base)
    r = httpx.get(base + "/v1/nothing", timeout=10)
    assert r.status_code == 404 and r.json()["error"]["type"] == "invalid_request_error"
    models = httpx.get(base + "/v1/models", timeout=10).json()
    assert [m["id"] for m in models["data"]] == ["tiny"]


def test_fifty_concurrent_requests(served):
    base, proc = served
    _healthy(base)
    start = _rss_kb(proc.pid)
    res = run_load(base, 50, {**SMALL, "max_tokens": 8})
    assert res.resets == 0, res.summary()
    assert set(res.statuses) <= {200, 429} and sum(res.statuses.values()) == 50, res.summary()
    assert res.statuses.get(200, 0) >= 16  # the queue holds 16: at least those are served
    _healthy(base)
    assert _rss_kb(proc.pid) < start * 1.5 + 200_000, (start, _rss_kb(proc.pid))
