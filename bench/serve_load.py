"""Latency of `leap serve` under N concurrent chat requests on loopback; writes docs/SERVE_BENCH.md (+ .json).

    python bench/serve_load.py [--model DIR] [--n 50] [--max-tokens 16] [--device cpu] [--out docs/SERVE_BENCH.md]

Without ``--model`` a tiny random model is built offline. The server runs in this process (a thread);
the client opens one connection per request. Reported: statuses, resets, p50/p99 latency of the 200s.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
import tempfile
import threading
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", default="")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--max-tokens", type=int, default=16)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--cache", default="static")
    ap.add_argument("--max-queue", type=int, default=256)
    ap.add_argument("--out", default="docs/SERVE_BENCH.md")
    a = ap.parse_args()

    from leap.rollout.policies.hf import HFPolicy
    from leap.rollout.serve_load import run_load
    from leap.rollout.server import ServeLimits, make_server

    model = a.model
    if not model:
        from leap.models.tiny import save_tiny

        model = str(save_tiny(Path(tempfile.mkdtemp()) / "tiny"))
    policy = HFPolicy(model, device=a.device, cache=a.cache)
    srv = make_server(policy, "127.0.0.1", 0, model_name="m", limits=ServeLimits(max_queue=a.max_queue))
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{srv.server_port}"
    body = {"model": "m", "messages": [{"role": "user", "content": "Write a Triton relu kernel."}],
            "max_tokens": a.max_tokens, "temperature": 0.0}
    run_load(base, 4, body)  # warm-up
    rounds = [run_load(base, a.n, body).summary() for _ in range(a.rounds)]
    srv.shutdown()
    import torch

    gpu = torch.cuda.get_device_name(0) if a.device.startswith("cuda") else "none"
    when = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cmd = "python " + " ".join(["bench/serve_load.py", *sys.argv[1:]])
    lines = ["# `leap serve` under concurrent load", "", f"Date: {when}  ", f"Command: `{cmd}`  ",
             f"Machine: {platform.node()} ({platform.machine()}, torch {torch.__version__}, GPU: {gpu})  ",
             f"Model: {'tiny random (built offline)' if not a.model else a.model}, cache {a.cache}, "
             f"{a.n} concurrent requests of {a.max_tokens} tokens, {a.rounds} rounds", "",
             "| round | 200 | 429 | other | resets | p50 (s) | p99 (s) | wall (s) |", "|---|---|---|---|---|---|---|---|"]
    for i, r in enumerate(rounds, 1):
        st = r["statuses"]
        other = sum(v for k, v in st.items() if k not in (200, 429))
        lines.append(f"| {i} | {st.get(200, 0)} | {st.get(429, 0)} | {other} | {r['resets']} | "
                     f"{r['p50_s'] or 0:.3f} | {r['p99_s'] or 0:.3f} | {r['wall_s']:.2f} |")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    out.with_suffix(".json").write_text(json.dumps({"date": when, "command": cmd, "rounds": rounds}, indent=1) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
