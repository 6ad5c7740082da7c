"""`RemoteSandbox`: the `Sandbox` API (``verify`` / ``verify_many``) over a ``leap sandbox serve`` service.

The task travels as its full `Task` record, so the service judges exactly the task given here. A
failure of the service or the network is a ``sandbox_error`` verdict (never blamed on the candidate);
429 answers are retried with backoff.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator

from leap.sandbox.judge import verdicts
from leap.sandbox.judge.verdict import Verdict
from leap.tasks.task import Task


class RemoteSandbox:
    """A client of the sandbox service at ``url`` (token: argument or ``$LEAP_SANDBOX_TOKEN``)."""

    def __init__(self, url: str, token: str | None = None, *, timeout: float = 600.0, batch: int = 32,
                 retries: int = 5, backoff: float = 0.5):
        import httpx

        from leap.sandbox.service import TOKEN_ENV

        self.url = url.rstrip("/")
        self.batch, self.retries, self.backoff = batch, retries, backoff
        token = token if token is not None else os.environ.get(TOKEN_ENV, "")
        self._client = httpx.Client(base_url=self.url, timeout=timeout,
                                    headers={"Authorization": f"Bearer {token}"})

    def _post(self, path: str, body: dict) -> tuple[dict | None, str]:
        import httpx

        last = ""
        for attempt in range(self.retries):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                r = self._client.post(path, json=body)
            except httpx.TransportError as exc:
                last = f"unreachable ({exc.__class__.__name__})"
                continue
            if r.status_code == 200:
                return r.json(), ""
            last = f"HTTP {r.status_code}: {r.text[:200]}"
            if r.status_code != 429 and r.status_code < 500:
                break
        return None, f"{self.url}{path}: {last}"

    @staticmethod
    def _error(task: Task, why: str) -> Verdict:
        return verdicts.sandbox_error({"task": task.name}, detail=why,
                                      feedback="The sandbox service failed; this says nothing about the candidate.")

    def verify(self, task: Task, source: str, *, backend: str = "auto", device: str = "auto") -> Verdict:
        """One verdict from the service (``device`` is the service's own)."""
        res, why = self._post("/verify", {"task": task.model_dump(mode="json"), "candidate": source,
                                          "backend": backend})
        return Verdict.model_validate(res) if res is not None else self._error(task, why)

    def verify_many(self, pairs: Iterable[tuple[Task, str]], *, backend: str = "auto",
                    device: str = "auto") -> Iterator[tuple[int, Verdict]]:
        """Verdicts for many pairs, sent in batches; yields ``(index, verdict)``."""
        pairs = list(pairs)
        for lo in range(0, len(pairs), self.batch):
            chunk = pairs[lo:lo + self.batch]
            res, why = self._post("/verify_batch", {"items": [
                {"task": t.model_dump(mode="json"), "candidate": s, "backend": backend} for t, s in chunk]})
            for k, (t, _) in enumerate(chunk):
                yield lo + k, (Verdict.model_validate(res["verdicts"][k]) if res is not None else self._error(t, why))

    def health(self) -> dict:
        return self._client.get("/health").json()

    def close(self) -> None:
        self._client.close()

    def __enter__(self) -> RemoteSandbox:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
