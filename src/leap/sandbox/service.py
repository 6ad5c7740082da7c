"""The sandbox as an HTTP service (``leap sandbox serve``): POST /verify, POST /verify_batch, GET /health.

FastAPI on uvicorn over one warm `leap.sandbox.Sandbox`. Every verify route needs
``Authorization: Bearer $LEAP_SANDBOX_TOKEN`` (401 without); bodies are size-limited (413); candidates
waiting or running are bounded (429 when full); SIGTERM finishes the requests in flight and closes the
pool. A task is a built-in name, a task module's source, or a full `Task` record (what `RemoteSandbox`
sends, so both sides judge exactly the same task). Answers are `Verdict.public_dict()`.
"""

from __future__ import annotations

import hashlib
import hmac
import threading
from dataclasses import dataclass

from pydantic import BaseModel, Field
from starlette.requests import Request  # module level: FastAPI resolves the handlers' annotations here

from leap.tasks.task import Task, TaskError

TOKEN_ENV = "LEAP_SANDBOX_TOKEN"


class VerifyRequest(BaseModel):
    task: str | Task = Field(description="built-in task name, task module source, or a Task record")
    candidate: str = Field(description="the candidate kernel's source")
    backend: str = "auto"


class BatchRequest(BaseModel):
    items: list[VerifyRequest]


@dataclass
class ServiceLimits:
    max_body_bytes: int = 8 << 20
    max_candidate_bytes: int = 512 << 10
    max_pending: int = 256        # candidates waiting or running; more are refused with 429
    max_batch: int = 256


class _Slots:
    """A counter of admitted candidates; `take` refuses instead of waiting."""

    def __init__(self, limit: int):
        self.limit, self.used, self._lock = limit, 0, threading.Lock()

    def take(self, n: int) -> bool:
        with self._lock:
            if self.used + n > self.limit:
                return False
            self.used += n
            return True

    def give(self, n: int) -> None:
        with self._lock:
            self.used -= n


def resolve_task(spec: str | Task, cache: dict[str, Task]) -> Task:
    """A `Task` from a record, a built-in name or a module source; `TaskError` (one line) otherwise."""
    if isinstance(spec, Task):
        return spec
    key = hashlib.sha256(spec.encode()).hexdigest()
    if key not in cache:
        if "\n" in spec or "class Model" in spec:
            from leap.tasks.task import parse_task

            cache[key] = parse_task(spec, f"task_{key[:10]}", origin="service")
        else:
            from leap.tasks.suite import get_builtin

            cache[key] = get_builtin(spec)
    return cache[key]


def make_service_app(sandbox, token: str, limits: ServiceLimits | None = None, device: str = "auto"):
    """The FastAPI app over ``sandbox`` (anything with `verify` / `verify_many`)."""
    from fastapi import FastAPI
    from fastapi.concurrency import run_in_threadpool
    from fastapi.exceptions import RequestValidationError
    from fastapi.responses import JSONResponse
    from starlette.exceptions import HTTPException

    limits = limits or ServiceLimits()
    slots = _Slots(limits.max_pending)
    tasks: dict[str, Task] = {}
    app = FastAPI(title="leap sandbox", docs_url=None, redoc_url=None, openapi_url=None)

    def err(status: int, message: str) -> JSONResponse:
        return JSONResponse({"error": message.splitlines()[0] if message else str(status)}, status_code=status)

    @app.exception_handler(HTTPException)
    async def _http(request, exc):
        return err(exc.status_code, f"{request.method} {request.url.path}: {exc.detail}")

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(x) for x in first.get("loc", ()) if x != "body")
        return err(400, f"{where or 'body'}: {first.get('msg', 'invalid request')}")

    @app.middleware("http")
    async def guard(request: Request, call_next):
        if request.url.path != "/health":
            given = request.headers.get("authorization", "")
            if not hmac.compare_digest(given.encode(), f"Bearer {token}".encode()):
                return err(401, "missing or wrong bearer token (Authorization: Bearer $LEAP_SANDBOX_TOKEN)")
            length = request.headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > limits.max_body_bytes):
                return err(413 if length.isdigit() else 400,
                           f"Content-Length {length!r}: expected a non-negative integer <= {limits.max_body_bytes}")
            if length is None and request.method == "POST":
                return err(411, "Content-Length required")
        return await call_next(request)

    def check(items: list[VerifyRequest]) -> list[tuple[Task, str, str]]:
        out = []
        for i, it in enumerate(items):
            if len(it.candidate.encode()) > limits.max_candidate_bytes:
                raise ValueError(f"items[{i}].candidate: over {limits.max_candidate_bytes} bytes")
            try:
                out.append((resolve_task(it.task, tasks), it.candidate, it.backend))
            except TaskError as exc:
                raise ValueError(f"items[{i}].task: {str(exc).splitlines()[0]}") from None
        return out

    def run(jobs: list[tuple[Task, str, str]]) -> list[dict]:
        verdicts: list = [None] * len(jobs)
        for backend in dict.fromkeys(b for _, _, b in jobs):
            idx = [i for i, j in enumerate(jobs) if j[2] == backend]
            for k, v in sandbox.verify_many([(jobs[i][0], jobs[i][1]) for i in idx], backend=backend,
                                            device=device):
                verdicts[idx[k]] = v
        return [v.public_dict() for v in verdicts]

    async def admit_and_run(items: list[VerifyRequest]):
        try:
            jobs = check(items)
        except ValueError as exc:
            return err(400, str(exc))
        if not slots.take(len(jobs)):
            return err(429, f"sandbox busy: {slots.used} candidates pending (limit {slots.limit}); retry later")
        try:
            return await run_in_threadpool(run, jobs)
        finally:
            slots.give(len(jobs))

    @app.get("/health")
    async def health():
        return {"status": "ok", "device": device, "pending": slots.used, "limit": slots.limit}

    @app.post("/verify")
    async def verify(req: VerifyRequest):
        out = await admit_and_run([req])
        return out[0] if isinstance(out, list) else out

    @app.post("/verify_batch")
    async def verify_batch(req: BatchRequest):
        if len(req.items) > limits.max_batch:
            return err(413, f"items: {len(req.items)} over the batch limit of {limits.max_batch}")
        out = await admit_and_run(req.items)
        return {"verdicts": out} if isinstance(out, list) else out

    return app
