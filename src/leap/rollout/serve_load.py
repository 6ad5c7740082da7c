"""A concurrent client for load-testing ``leap serve`` (used by the CI load test and ``bench/serve_load.py``)."""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass, field


@dataclass
class LoadResult:
    statuses: dict[int, int] = field(default_factory=dict)
    resets: int = 0                      # connections dropped or refused: no HTTP answer at all
    latencies_s: list[float] = field(default_factory=list)   # of the 200 answers
    wall_s: float = 0.0

    def pct(self, q: float) -> float | None:
        if not self.latencies_s:
            return None
        xs = sorted(self.latencies_s)
        return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]

    def summary(self) -> dict:
        return {"statuses": self.statuses, "resets": self.resets, "served": len(self.latencies_s),
                "p50_s": self.pct(0.5), "p99_s": self.pct(0.99), "wall_s": round(self.wall_s, 3),
                "mean_s": statistics.fmean(self.latencies_s) if self.latencies_s else None}


async def _load(base: str, n: int, body: dict, timeout: float) -> LoadResult:
    import httpx

    res = LoadResult()
    limits = httpx.Limits(max_connections=n, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=base, timeout=timeout, limits=limits) as client:
        async def one() -> None:
            t0 = time.perf_counter()
            try:
                r = await client.post("/v1/chat/completions", json=body)
            except (httpx.TransportError, OSError):
                res.resets += 1
                return
            res.statuses[r.status_code] = res.statuses.get(r.status_code, 0) + 1
            if r.status_code == 200:
                res.latencies_s.append(time.perf_counter() - t0)

        t0 = time.perf_counter()
        await asyncio.gather(*(one() for _ in range(n)))
        res.wall_s = time.perf_counter() - t0
    return res


def run_load(base: str, n: int, body: dict, timeout: float = 300.0) -> LoadResult:
    """Send ``n`` copies of ``body`` at once to ``base`` (``http://host:port``); count answers and resets."""
    return asyncio.run(_load(base, n, body, timeout))
