"""Judge-side cost per candidate: make_trials + reference outputs + is_degenerate + compare_outputs.

Run: python bench/judge_perf.py [--rows 2048 --cols 4096 --device cpu|cuda --trials 5 --repeat 3 --threads N]
Prints one JSON line per stage (median seconds over --repeat runs) and the total. On the GPU the
judge keeps everything on the device (inputs drawn there, references and comparisons there).
"""

from __future__ import annotations

import argparse
import inspect
import json
import statistics
import time

import torch

from leap.sandbox.judge.compare import compare_outputs, is_degenerate
from leap.sandbox.judge.inputs import make_trials
from leap.sandbox.judge.reference import reference_outputs
from leap.sandbox.judge.task_module import build_model, load_task_module
from leap.tasks.task import parse_task

SRC = """
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)
def get_inputs():
    return [torch.randn({rows}, {cols}, dtype=torch.{dtype})]
def get_init_inputs():
    return []
"""


def _sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def run_once(task, module, model, device: str, n_trials: int) -> dict[str, float]:
    kw = {"device": device} if "device" in inspect.signature(make_trials).parameters else {}
    t0 = time.perf_counter()
    trials = make_trials(task, module, n_trials=n_trials, seed=1234, small=False, **kw)
    _sync(device)
    t1 = time.perf_counter()
    refs = reference_outputs(model, trials, device)
    _sync(device)
    t2 = time.perf_counter()
    degenerate = [is_degenerate(r) for r in refs]
    _sync(device)
    t3 = time.perf_counter()
    outs = [r * (1 + 1e-6) for r in refs]  # a correct candidate, not bit-exact
    _sync(device)
    t4 = time.perf_counter()
    results = [compare_outputs(r, o) for r, o in zip(refs, outs, strict=True)]
    _sync(device)
    t5 = time.perf_counter()
    wrong = compare_outputs(refs[0], refs[0] + 1.0)  # every element wrong: the failure path
    _sync(device)
    t6 = time.perf_counter()
    assert all(r.ok for r in results) and not wrong.ok and not any(degenerate)
    return {"make_trials": t1 - t0, "reference": t2 - t1, "is_degenerate": t3 - t2,
            "compare_ok": t5 - t4, "compare_wrong": t6 - t5}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2048)
    ap.add_argument("--cols", type=int, default=4096)
    ap.add_argument("--dtype", default="float32")
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--trials", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    a = ap.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    src = SRC.format(rows=a.rows, cols=a.cols, dtype=a.dtype)
    task = parse_task(src, "bench_relu")
    module = load_task_module(src, "bench_relu")
    model = build_model(module, [], 42, a.device)
    runs = [run_once(task, module, model, a.device, a.trials) for _ in range(a.repeat)]
    med = {k: round(statistics.median(r[k] for r in runs), 4) for k in runs[0]}
    med["total"] = round(sum(v for k, v in med.items() if k != "compare_wrong"), 4)
    print(json.dumps({"shape": [a.rows, a.cols], "dtype": a.dtype, "device": a.device, "trials": a.trials,
                      "threads": torch.get_num_threads(), "median_s": med}))


if __name__ == "__main__":
    main()
