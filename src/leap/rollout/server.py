"""An OpenAI-compatible HTTP server over a policy (``leap serve``): /v1/models, /v1/chat/completions, /health.

FastAPI on uvicorn. Every request is bounded: body size (413), body arrival time (408), prompt +
``max_tokens`` against the model's context (400), waiting + generation time (504), and the number of
generations queued or running (429 when full). Errors carry OpenAI's shape and types
(``invalid_request_error`` for 4xx, ``rate_limit_error`` for 429, ``server_error`` for 5xx); a model name
other than the served one is 404. One worker thread generates: it takes queued requests with the same
sampling settings (up to ``max_batch``) and runs them as one ``generate`` call. Each choice also carries
``prompt_token_ids``/``token_ids`` (as vLLM does) for clients that train. With ``adapters`` (`leap serve
--enable-lora`) LoRA adapters are loaded and unloaded at run time through vLLM's two routes
(`leap.rollout.lora_serving`), and a request naming an adapter as its ``model`` generates with it.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import socket
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass

from starlette.requests import Request  # module level: FastAPI resolves the handler's annotations here

from leap.rollout.policies.base import Policy, PolicyError, SamplingParams


@dataclass
class ServeLimits:
    """What one request may cost the server."""

    max_body_bytes: int = 1 << 20
    body_timeout_s: float = 15.0
    request_timeout_s: float = 300.0
    max_queue: int = 256          # generations waiting or running; more are refused with 429
    max_batch: int = 64
    batch_wait_s: float = 0.01
    max_n: int = 16
    default_max_tokens: int = 256


_TYPES = {401: "authentication_error", 429: "rate_limit_error"}


class APIError(Exception):
    """An error reply: HTTP status and one line."""

    def __init__(self, status: int, message: str, code: str | None = None):
        super().__init__(message)
        self.status, self.message, self.code = status, message, code

    def body(self) -> dict:
        kind = _TYPES.get(self.status, "server_error" if self.status >= 500 else "invalid_request_error")
        return {"error": {"message": self.message, "type": kind, "param": None, "code": self.code or self.status}}


BadRequest = APIError  # the old name


def parse_request(body: dict, limits: ServeLimits | None = None) -> tuple[list[dict], SamplingParams, int, bool]:
    """(messages, params, n, max_tokens_given) from a chat-completions body; `APIError` 400 names the field."""
    limits = limits or ServeLimits()
    msgs = body.get("messages")
    if not isinstance(msgs, list) or not msgs or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str) and isinstance(m.get("content"), str)
            for m in msgs):
        raise APIError(400, "messages: expected a non-empty list of {role, content} strings")
    stop = body.get("stop") or ()
    if isinstance(stop, str):
        stop = (stop,)
    mx = body.get("max_completion_tokens", body.get("max_tokens"))
    try:
        params = SamplingParams(
            max_new_tokens=int(mx) if mx is not None else limits.default_max_tokens,
            temperature=float(body.get("temperature", 1.0)), top_p=float(body.get("top_p", 1.0)),
            top_k=int(body.get("top_k", 0) or 0), stop=tuple(str(s) for s in stop),
            seed=int(body["seed"]) if body.get("seed") is not None else None, logprobs=bool(body.get("logprobs")))
        n = int(body.get("n", 1))
    except (TypeError, ValueError, OverflowError) as exc:
        raise APIError(400, f"sampling parameters: {exc}") from None
    if params.max_new_tokens < 1 or not 1 <= n <= limits.max_n or params.temperature < 0:
        raise APIError(400, f"max_tokens must be >= 1, n in 1..{limits.max_n}, temperature >= 0")
    return [{"role": m["role"], "content": m["content"]} for m in msgs], params, n, mx is not None


class Batcher:
    """A bounded queue of generations and the one thread that runs them, batched by sampling settings."""

    def __init__(self, policy: Policy, max_batch: int = 64, wait_s: float = 0.01, max_queue: int = 256,
                 adapters=None):
        self.policy, self.max_batch, self.wait_s, self.max_queue = policy, max_batch, wait_s, max_queue
        self.adapters = adapters  # a `leap.rollout.lora_serving.AdapterSet`, or None
        self._pending: collections.deque = collections.deque()
        self._cv = threading.Condition()
        self._stop = False
        self.batches = 0
        self._thread = threading.Thread(target=self._loop, name="leap-serve-generate", daemon=True)
        self._thread.start()

    def submit(self, items: list[tuple[list[dict], SamplingParams]], adapter: str | None = None) -> list[Future]:
        """Queue all of ``items`` (generated with LoRA ``adapter``, None = the base weights) or none;
        `APIError` 429 when the queue has no room."""
        with self._cv:
            if len(self._pending) + len(items) > self.max_queue:
                raise APIError(429, f"server busy: {len(self._pending)} generations queued "
                                    f"(limit {self.max_queue}); retry later", "rate_limit_exceeded")
            futs = []
            for messages, params in items:
                fut: Future = Future()
                self._pending.append((messages, params, fut, adapter))
                futs.append(fut)
            self._cv.notify()
        return futs

    def close(self) -> None:
        with self._cv:
            self._stop = True
            self._cv.notify()
        self._thread.join(timeout=10)

    def _take(self) -> list[tuple]:
        with self._cv:
            while not self._pending and not self._stop:
                self._cv.wait()
            if self._stop:
                return []
        time.sleep(self.wait_s)  # let concurrent requests join this batch
        with self._cv:
            first = self._pending[0][1], self._pending[0][3]
            batch, rest = [], collections.deque()
            while self._pending:
                item = self._pending.popleft()
                if (item[1], item[3]) == first and len(batch) < self.max_batch:
                    batch.append(item)
                else:
                    rest.append(item)
            self._pending = rest
        return [b for b in batch if b[2].set_running_or_notify_cancel()]  # timed-out requests are skipped

    def _loop(self) -> None:
        while not self._stop:
            batch = self._take()
            if not batch:
                continue
            self.batches += 1
            try:
                adapter = batch[0][3]
                with self.adapters.using(adapter) if self.adapters is not None else contextlib.nullcontext():
                    gens = self.policy.generate([b[0] for b in batch], batch[0][1])
                for (_, _, fut, _), g in zip(batch, gens, strict=True):
                    fut.set_result(g)
            except Exception as exc:  # noqa: BLE001 - reported to every waiting request
                for _, _, fut, _ in batch:
                    fut.set_exception(exc)


async def _read_body(request, limits: ServeLimits) -> bytes:
    length = request.headers.get("content-length")
    if length is not None:
        if not length.strip().isdigit():
            raise APIError(400, f"Content-Length: expected a non-negative integer, got {length!r}")
        if int(length) > limits.max_body_bytes:
            raise APIError(413, f"request body is {int(length)} bytes; the limit is {limits.max_body_bytes}")
    chunks: list[bytes] = []
    size = 0

    async def read() -> None:
        nonlocal size
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_body_bytes:
                raise APIError(413, f"request body over the limit of {limits.max_body_bytes} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), limits.body_timeout_s)
    except asyncio.TimeoutError:
        raise APIError(408, f"request body not received within {limits.body_timeout_s:g} s") from None
    return b"".join(chunks)


def _choices(gens, logprobs: bool) -> list[dict]:
    out = []
    for i, g in enumerate(gens):
        c = {"index": i, "message": {"role": "assistant", "content": g.text}, "finish_reason": g.finish_reason,
             "prompt_token_ids": g.prompt_ids, "token_ids": g.completion_ids}
        if logprobs and g.logprobs is not None:
            c["logprobs"] = {"content": [{"token": "", "logprob": lp} for lp in g.logprobs]}
        out.append(c)
    return out


def _sse(head: dict, choices: list[dict], usage: dict | None):
    """A finished answer as OpenAI's stream of ``chat.completion.chunk`` events (``stream: true``): per choice
    one chunk with the whole text (and its token ids / log-probs), one with the finish reason; then usage
    if asked for, then ``[DONE]``. Generation is not incremental: the first chunk comes when it is done."""
    import json

    def event(choices_: list[dict], **extra) -> str:
        return "data: " + json.dumps({**head, "object": "chat.completion.chunk", "choices": choices_, **extra}) + "\n\n"

    for c in choices:
        delta = {"index": c["index"], "delta": {"role": "assistant", "content": c["message"]["content"]},
                 "finish_reason": None, "token_ids": c["token_ids"]}
        if "logprobs" in c:
            delta["logprobs"] = c["logprobs"]
        yield event([delta], prompt_token_ids=c["prompt_token_ids"])
        yield event([{"index": c["index"], "delta": {}, "finish_reason": c["finish_reason"]}])
    if usage is not None:
        yield event([], usage=usage)
    yield "data: [DONE]\n\n"


def make_app(policy: Policy, model_name: str, limits: ServeLimits | None = None, batcher: Batcher | None = None):
    """The FastAPI app serving ``policy`` as ``model_name``."""
    import json

    from fastapi import FastAPI
    from fastapi.concurrency import run_in_threadpool
    from fastapi.responses import JSONResponse, StreamingResponse
    from starlette.exceptions import HTTPException

    limits = limits or ServeLimits()
    batcher = batcher or Batcher(policy, limits.max_batch, limits.batch_wait_s, limits.max_queue)
    app = FastAPI(title="leap serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.batcher = batcher
    ctx = getattr(policy, "context_length", None)
    count = getattr(policy, "prompt_tokens", None)

    @app.exception_handler(APIError)
    async def _api_error(request, exc: APIError):
        return JSONResponse(exc.body(), status_code=exc.status)

    @app.exception_handler(HTTPException)
    async def _http_error(request, exc: HTTPException):
        return JSONResponse(APIError(exc.status_code, f"{request.method} {request.url.path}: {exc.detail}").body(),
                            status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _internal(request, exc: Exception):
        line = f"{exc.__class__.__name__}: {(str(exc).splitlines() or [''])[0][:200]}"
        return JSONResponse(APIError(500, f"internal error: {line}").body(), status_code=500)

    adapters = batcher.adapters

    @app.get("/health")
    async def health():
        out = {"status": "ok", "model": model_name, "queued": len(batcher._pending)}
        if adapters is not None:
            out.update(lora_adapters=adapters.names(), lora_loads=adapters.loads)
        return out

    @app.get("/v1/models")
    async def models():
        data = [{"id": model_name, "object": "model", "created": 0, "owned_by": "leap"}]
        if adapters is not None:
            data += [{"id": n, "object": "model", "created": 0, "owned_by": "leap", "parent": model_name}
                     for n in adapters.names()]
        return {"object": "list", "data": data}

    async def _json(request) -> dict:
        raw = await _read_body(request, limits)
        try:
            body = json.loads(raw or b"{}")
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise APIError(400, f"body: not JSON ({exc})") from None
        if not isinstance(body, dict):
            raise APIError(400, "body: expected a JSON object")
        return body

    def _lora_routes() -> None:
        if adapters is None:
            raise APIError(404, "dynamic LoRA loading is off (start leap serve with --enable-lora)")

    @app.post("/v1/load_lora_adapter")
    async def load_lora(request: Request):
        _lora_routes()
        body = await _json(request)
        await run_in_threadpool(adapters.load, body.get("lora_name"), body.get("lora_path"))
        return {"status": "ok", "lora_name": body["lora_name"], "loads": adapters.loads}

    @app.post("/v1/unload_lora_adapter")
    async def unload_lora(request: Request):
        _lora_routes()
        body = await _json(request)
        await run_in_threadpool(adapters.unload, body.get("lora_name"))
        return {"status": "ok", "lora_name": body["lora_name"]}

    @app.post("/v1/chat/completions")
    async def chat(request: Request):
        body = await _json(request)
        asked = body.get("model")
        adapter = None
        if asked is not None and asked != model_name:
            if adapters is None or asked not in adapters.names():
                raise APIError(404, f"model {asked!r} is not served here (this server has {model_name!r})",
                               "model_not_found")
            adapter = asked
        messages, params, n, given = parse_request(body, limits)
        if ctx is not None and count is not None:
            pt = await run_in_threadpool(count, messages)
            if not given:
                params.max_new_tokens = max(1, min(params.max_new_tokens, ctx - pt))
            if pt + params.max_new_tokens > ctx:
                raise APIError(400, f"prompt ({pt} tokens) + max_tokens ({params.max_new_tokens}) exceeds the "
                                    f"model's context of {ctx} tokens", "context_length_exceeded")
        items = [(messages, params if n == 1 or params.seed is None
                  else SamplingParams(**{**params.__dict__, "seed": params.seed + i})) for i in range(n)]
        futs = batcher.submit(items, adapter)
        waits = [asyncio.wrap_future(f) for f in futs]
        try:
            gens = await asyncio.wait_for(asyncio.gather(*waits), limits.request_timeout_s)
        except asyncio.TimeoutError:
            raise APIError(504, f"generation did not finish within {limits.request_timeout_s:g} s",
                           "timeout") from None
        except APIError:
            raise
        except PolicyError as exc:
            raise APIError(400 if "context" in str(exc) else 500, str(exc)) from None
        except Exception as exc:  # noqa: BLE001 - a failed generation is an error reply, not a dropped connection
            raise APIError(500, f"generation failed: {exc.__class__.__name__}: "
                                f"{(str(exc).splitlines() or [''])[0][:200]}") from None
        pt = gens[0].prompt_tokens if gens else 0
        ct = sum(g.completion_tokens for g in gens)
        usage = {"prompt_tokens": pt, "completion_tokens": ct, "total_tokens": pt + ct}
        head = {"id": f"chatcmpl-{uuid.uuid4().hex[:16]}", "created": int(time.time()), "model": asked or model_name}
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return StreamingResponse(_sse(head, _choices(gens, params.logprobs), usage if include_usage else None),
                                     media_type="text/event-stream")
        return {**head, "object": "chat.completion", "choices": _choices(gens, params.logprobs), "usage": usage}

    return app


class UvicornServer:
    """uvicorn on a socket bound up front (so ``server_port`` is known), run in the calling thread.

    ``serve_forever``/``shutdown``/``server_close`` mirror the standard library's server, so tests can run
    it in a thread; in the main thread SIGTERM/SIGINT shut it down gracefully.
    """

    def __init__(self, app, host: str, port: int, *, on_close=None, backlog: int = 2048):
        import uvicorn

        self._sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, port))
        self._sock.listen(backlog)
        self.server_address = self._sock.getsockname()[:2]
        self.server_port = self.server_address[1]
        self._on_close = on_close
        self._done = threading.Event()
        self._server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", backlog=backlog,
                                                     timeout_keep_alive=5, timeout_graceful_shutdown=10,
                                                     h11_max_incomplete_event_size=64 * 1024))

    def serve_forever(self) -> None:
        import signal

        if threading.current_thread() is threading.main_thread():
            # uvicorn re-raises the signal that stopped it once it has shut down; with this handler in place
            # that re-raise is a no-op and the process exits normally (status 0) after the graceful stop
            for sig in (signal.SIGTERM, signal.SIGINT):
                signal.signal(sig, lambda *_: None)
        try:
            self._server.run(sockets=[self._sock])
        finally:
            self._done.set()
            self.server_close()

    def shutdown(self, timeout: float = 15.0) -> None:
        self._server.should_exit = True
        self._done.wait(timeout)

    def server_close(self) -> None:
        if self._on_close is not None:
            self._on_close()
            self._on_close = None
        self._sock.close()


def make_server(policy: Policy, host: str = "127.0.0.1", port: int = 8000, *, model_name: str | None = None,
                max_batch: int = 64, limits: ServeLimits | None = None, max_lora: int = 0) -> UvicornServer:
    """A ready (not yet serving) server; ``port=0`` picks a free port (see ``server.server_port``).
    ``max_lora`` > 0 turns on dynamic LoRA loading with room for that many adapters (an HF policy only)."""
    limits = limits or ServeLimits(max_batch=max_batch)
    name = model_name or getattr(policy, "name", "model")
    adapters = None
    if max_lora > 0:
        from leap.rollout.lora_serving import AdapterSet

        adapters = AdapterSet(policy, max_lora)
    batcher = Batcher(policy, limits.max_batch, limits.batch_wait_s, limits.max_queue, adapters=adapters)
    return UvicornServer(make_app(policy, name, limits, batcher), host, port, on_close=batcher.close)
