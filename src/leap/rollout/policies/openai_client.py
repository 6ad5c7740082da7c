"""A client for OpenAI-compatible chat endpoints (hosted models, vLLM/SGLang servers, `leap serve`).

Standard library only: requests run in a bounded thread pool (``concurrency``), each with a timeout and
retries with exponential backoff on connection errors, 429 and 5xx. An unreachable endpoint or a
refused request raises `PolicyError` with one line. A call's seed is spread over its prompts (prompt i gets
seed + i), so identical prompts still give distinct samples on servers that honour per-request seeds (vLLM).
``token_ids=True`` asks for the prompt and sampled token ids (vLLM's ``return_token_ids``; `leap serve`
always sends them) for clients that train on them.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from leap.rollout.policies.base import Generation, Messages, PolicyError, SamplingParams, cut_at_stop


def _base(url: str) -> str:
    url = url.rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise PolicyError(f"{url}: not an http(s) endpoint URL (expected e.g. http://127.0.0.1:8000/v1)")
    return url if url.endswith("/v1") else url + "/v1"


class OpenAIPolicy:
    """Chat completions from an OpenAI-compatible server."""

    def __init__(self, url: str, *, model_name: str | None = None, api_key: str | None = None,
                 concurrency: int = 8, timeout: float = 600.0, retries: int = 3, backoff: float = 1.0,
                 connect_timeout: float = 10.0, token_ids: bool = False):
        self.base = _base(url)
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.concurrency, self.timeout, self.retries, self.backoff = concurrency, timeout, retries, backoff
        self.token_ids = token_ids
        models = self._request("GET", "/models", None, timeout=connect_timeout, retries=1)
        names = [m.get("id", "") for m in models.get("data", [])] if isinstance(models, dict) else []
        if model_name is None:
            if not names:
                raise PolicyError(f"{self.base}: the endpoint lists no models; pass a model name")
            model_name = names[0]
        self.name = model_name

    def post(self, path: str, body: dict, *, timeout: float | None = None, retries: int = 1) -> dict:
        """POST ``body`` to ``/v1<path>`` (e.g. ``/load_lora_adapter``); `PolicyError` with one line."""
        return self._request("POST", path, body, timeout=timeout or self.timeout, retries=retries)

    def _request(self, method: str, path: str, body: dict | None, *, timeout: float, retries: int) -> dict:
        url = self.base + path
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        last = ""
        for attempt in range(max(retries, 1)):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            req = urllib.request.Request(url, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(req, timeout=timeout) as resp:
                    return json.loads(resp.read().decode())
            except urllib.error.HTTPError as exc:
                detail = exc.read().decode(errors="replace")[:300].replace("\n", " ")
                last = f"HTTP {exc.code} {detail}"
                if exc.code != 429 and exc.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                last = f"unreachable ({reason})"
            except json.JSONDecodeError:
                last = "the response is not JSON"
                break
        raise PolicyError(f"{url}: {last}")

    def _one(self, messages: Messages, params: SamplingParams) -> Generation:
        body: dict = {"model": self.name, "messages": messages, "max_tokens": params.max_new_tokens,
                      "temperature": params.temperature, "top_p": params.top_p}
        if params.top_k:
            body["top_k"] = params.top_k
        if params.stop:
            body["stop"] = list(params.stop)
        if params.seed is not None:
            body["seed"] = params.seed
        if params.logprobs:
            body["logprobs"] = True
        if self.token_ids:
            body["return_token_ids"] = True
        res = self._request("POST", "/chat/completions", body, timeout=self.timeout, retries=self.retries)
        try:
            choice = res["choices"][0]
            text = choice["message"]["content"] or ""
        except (KeyError, IndexError, TypeError):
            raise PolicyError(f"{self.base}/chat/completions: malformed response (no choices[0].message)") from None
        text, _ = cut_at_stop(text, params.stop)
        usage = res.get("usage") or {}
        lps = None
        content = (choice.get("logprobs") or {}).get("content") if params.logprobs else None
        if content:
            lps = [float(c.get("logprob", 0.0)) for c in content]
        return Generation(text=text, logprobs=lps, finish_reason=choice.get("finish_reason") or "stop",
                          prompt_tokens=int(usage.get("prompt_tokens", 0)),
                          completion_tokens=int(usage.get("completion_tokens", 0)),
                          prompt_ids=choice.get("prompt_token_ids") or res.get("prompt_token_ids"),
                          completion_ids=choice.get("token_ids"))

    def generate(self, prompts: list[Messages], params: SamplingParams) -> list[Generation]:
        if not prompts:
            return []
        each = [params if params.seed is None else dataclasses.replace(params, seed=params.seed + i)
                for i in range(len(prompts))]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(prompts))) as pool:
            return list(pool.map(self._one, prompts, each))
