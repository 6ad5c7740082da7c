"""An OpenAI-compatible HTTP server over a policy (``leap serve``): /v1/models, /v1/chat/completions.

Standard library only (ThreadingHTTPServer). Requests are batched: a worker thread takes queued
requests with the same sampling settings (up to ``max_batch``) and generates them together. The
response adds ``prompt_token_ids``/``token_ids`` to each choice (as vLLM does) for clients that train.
"""

from __future__ import annotations

import json
import queue
import threading
import time
import uuid
from concurrent.futures import Future
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from leap.rollout.policies.base import Policy, PolicyError, SamplingParams


class BadRequest(ValueError):
    pass


def parse_request(body: dict) -> tuple[list[dict], SamplingParams, int]:
    """(messages, params, n) from a chat-completions body; `BadRequest` names the bad field."""
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in msgs):
        raise BadRequest("messages: expected a non-empty list of {role, content} strings")
    stop = body.get("stop") or ()
    if isinstance(stop, str):
        stop = (stop,)
    mx = body.get("max_completion_tokens", body.get("max_tokens"))
    try:
        params = SamplingParams(
            max_new_tokens=int(mx) if mx is not None else 256,
            temperature=float(body.get("temperature", 1.0)), top_p=float(body.get("top_p", 1.0)),
            top_k=int(body.get("top_k", 0) or 0), stop=tuple(str(s) for s in stop),
            seed=int(body["seed"]) if body.get("seed") is not None else None, logprobs=bool(body.get("logprobs")))
        n = int(body.get("n", 1))
    except (TypeError, ValueError) as exc:
        raise BadRequest(f"sampling parameters: {exc}") from None
    if params.max_new_tokens < 1 or not 1 <= n <= 64 or params.temperature < 0:
        raise BadRequest("max_tokens must be >= 1, n in 1..64, temperature >= 0")
    return [{"role": m["role"], "content": m["content"]} for m in msgs], params, n


class Batcher:
    """Collects requests and runs them through the policy in batches (one generation at a time)."""

    def __init__(self, policy: Policy, max_batch: int = 64, wait_s: float = 0.01):
        self.policy, self.max_batch, self.wait_s = policy, max_batch, wait_s
        self.q: queue.Queue = queue.Queue()
        threading.Thread(target=self._loop, daemon=True).start()

    def submit(self, messages: list[dict], params: SamplingParams) -> Future:
        fut: Future = Future()
        self.q.put((messages, params, fut))
        return fut

    def _loop(self) -> None:
        while True:
            first = self.q.get()
            time.sleep(self.wait_s)
            batch, rest = [first], []
            while len(batch) < self.max_batch:
                try:
                    item = self.q.get_nowait()
                except queue.Empty:
                    break
                (batch if item[1] == first[1] else rest).append(item)
            for item in rest:
                self.q.put(item)
            try:
                gens = self.policy.generate([b[0] for b in batch], first[1])
                for (_, _, fut), g in zip(batch, gens, strict=True):
                    fut.set_result(g)
            except Exception as exc:  # noqa: BLE001 - reported to every waiting request
                for _, _, fut in batch:
                    fut.set_exception(exc)


def make_handler(batcher: Batcher, model_name: str):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:  # quiet
            pass

        def _send(self, code: int, obj: dict) -> None:
            data = json.dumps(obj).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _error(self, code: int, msg: str) -> None:
            self._send(code, {"error": {"message": msg, "type": "invalid_request_error", "code": code}})

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [
                    {"id": model_name, "object": "model", "created": 0, "owned_by": "leap"}]})
            else:
                self._error(404, f"no route {self.path}")

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._error(404, f"no route {self.path}")
                return
            try:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not isinstance(body, dict):
                    raise BadRequest("body: expected a JSON object")
                messages, params, n = parse_request(body)
            except (BadRequest, json.JSONDecodeError, ValueError) as exc:
                self._error(400, str(exc))
                return
            try:
                futs = [batcher.submit(messages, params if n == 1 or params.seed is None
                                       else SamplingParams(**{**params.__dict__, "seed": params.seed + i}))
                        for i in range(n)]
                gens = [f.result() for f in futs]
            except PolicyError as exc:
                self._error(500, str(exc))
                return
            except Exception as exc:  # noqa: BLE001 - a failed generation is an error reply, not a dropped connection
                self._error(500, f"generation failed: {exc.__class__.__name__}: {str(exc).splitlines()[0][:200]}")
                return
            choices = []
            for i, g in enumerate(gens):
                c = {"index": i, "message": {"role": "assistant", "content": g.text},
                     "finish_reason": g.finish_reason, "prompt_token_ids": g.prompt_ids, "token_ids": g.completion_ids}
                if params.logprobs and g.logprobs is not None:
                    c["logprobs"] = {"content": [{"token": "", "logprob": lp} for lp in g.logprobs]}
                choices.append(c)
            pt = gens[0].prompt_tokens if gens else 0
            ct = sum(g.completion_tokens for g in gens)
            self._send(200, {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "object": "chat.completion",
                             "created": int(time.time()), "model": model_name, "choices": choices,
                             "usage": {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}})

    return Handler


def make_server(policy: Policy, host: str = "127.0.0.1", port: int = 8000, *, model_name: str | None = None,
                max_batch: int = 64) -> ThreadingHTTPServer:
    """A ready (not yet serving) server; ``port=0`` picks a free port (see ``server.server_port``)."""
    name = model_name or getattr(policy, "name", "model")
    server = ThreadingHTTPServer((host, port), make_handler(Batcher(policy, max_batch), name))
    server.daemon_threads = True
    return server
