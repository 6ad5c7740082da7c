"""Repeatability of the sandbox's GPU timing (leap.sandbox.worker.timing) on plain PyTorch kernels.

For each workload, ``time_forward`` runs --repeats times (each: warm-up, L2 flush before every sample,
CUDA events, median of --samples, host-clock cross-check). Reports the spread of the medians
((max - min) / mean; target <= 2% for kernels of >= 50 us), events vs host clock, the L2 size and flush
size, and a side-stream workload that must be flagged. Writes Markdown (+ JSON with --json).

    python bench/timing_repeatability.py --out docs/TIMING_REPEATABILITY.md --json /tmp/timing.json

Needs only torch (no pydantic).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
from leap.sandbox.worker import timing  # noqa: E402


def workloads() -> dict:
    x = torch.randn(64 << 20, device="cuda")
    s = torch.randn(8192, 8192, device="cuda")
    a = torch.randn(4096, 4096, device="cuda")
    h = torch.randn(16384, 4096, device="cuda", dtype=torch.bfloat16)
    small = torch.randn(1 << 16, device="cuda")
    side = torch.cuda.Stream()

    def hidden(inp):
        out = inp * 2
        with torch.cuda.stream(side):
            for _ in range(8):
                torch.mm(a, a)
        return out

    return {
        "relu 64M fp32": (torch.relu, [x], False),
        "softmax 8192x8192 fp32": (lambda t: torch.softmax(t, -1), [s], False),
        "matmul 4096^3 fp32": (torch.mm, [a, a], False),
        "layernorm 16384x4096 bf16": (lambda t: torch.nn.functional.layer_norm(t, (4096,)), [h], False),
        "relu 64K fp32 (launch-bound)": (torch.relu, [small], False),
        "side-stream work (must be flagged)": (hidden, [small], True),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--samples", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--out", default="")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("needs a CUDA GPU")
    rows = []
    for name, (fn, inputs, expect_flag) in workloads().items():
        res = [timing.time_forward(fn, inputs, warmup=args.warmup, samples=args.samples) for _ in range(args.repeats)]
        meds = [r.median_us for r in res]
        mean = sum(meds) / len(meds)
        rows.append({"workload": name, "medians_us": meds, "mean_us": mean,
                     "spread": (max(meds) - min(meds)) / mean if mean else 0.0,
                     "host_us": [r.host_us for r in res], "host_batch_us": [r.host_batch_us for r in res],
                     "tail_us": [r.tail_us for r in res], "tail_batch_us": [r.tail_batch_us for r in res],
                     "flagged": [not r.host_agrees for r in res], "expect_flag": expect_flag})
        print(f"{name}: median {mean:.1f} us, spread {rows[-1]['spread']:.2%}, flagged {rows[-1]['flagged']}",
              flush=True)
    l2, flush = timing.l2_cache_bytes(), timing.l2_flush_bytes()
    head = (f"# GPU timing repeatability\n\n`python bench/timing_repeatability.py` — {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M UTC}, "
            f"{torch.cuda.get_device_name()}, torch {torch.__version__}, CUDA {torch.version.cuda}, "
            f"{platform.node()}.\nL2 {l2 / 2**20:.0f} MiB, flush {flush / 2**20:.0f} MiB; {args.repeats} repeats x "
            f"{args.samples} samples. Flagged: the tail (synchronize wait after the measured stream) beyond "
            f"tolerance; the host clock is shown, not decided on.\n\n| workload | mean median (us) | spread | host per call "
            "(us) | host batch (us) | tail per call (us) | tail after batch (us) | flagged | expected |\n"
            "|---|---|---|---|---|---|---|---|---|\n")
    body = "".join(
        f"| {r['workload']} | {r['mean_us']:.1f} | {r['spread']:.2%} | {max(r['host_us']):.1f} | "
        f"{max(r['host_batch_us']):.1f} | {max(r['tail_us']):.1f} | {max(r['tail_batch_us']):.1f} | "
        f"{sum(r['flagged'])}/{len(r['flagged'])} | {r['expect_flag']} |\n" for r in rows)
    text = head + body
    print(text)
    if args.out:
        Path(args.out).write_text(text)
    if args.json:
        Path(args.json).write_text(json.dumps({"l2_bytes": l2, "flush_bytes": flush, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
