"""GPU contention (issue 12, item 6): a correct kernel is never rejected because another process loads the
same GPU, and work on a side stream is still flagged. Run: pytest -q -m gpu tests/gpu/test_gpu_contention.py -s"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest
import torch

from leap.sandbox.worker import child_timing, timing

pytestmark = pytest.mark.gpu

# another process on the same GPU: back-to-back matmuls with frequent synchronizes, like a generating model
LOADER = """
import sys, time, torch
a = torch.randn(4096, 4096, device="cuda")
print("ready", flush=True)
end = time.time() + float(sys.argv[1])
while time.time() < end:
    for _ in range(4):
        a = torch.mm(a, a).clamp_(-1, 1)
    torch.cuda.synchronize()
"""


@pytest.fixture
def loaded_gpu():
    proc = subprocess.Popen([sys.executable, "-c", LOADER, "600"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        yield proc
    finally:
        proc.kill()
        proc.wait()


CFG = {"warmup": 5, "samples": 30, "flush_l2": True, "host_tolerance": 0.10, "host_slack_us": 100.0}


def test_correct_kernel_is_not_flagged_while_another_process_loads_the_gpu(loaded_gpu):
    for n in (1 << 10, 1 << 20, 1 << 24):  # ~5 us, ~20 us, ~100+ us on an H200
        x = torch.randn(n, device="cuda")
        for _ in range(3):
            out = child_timing.measure(torch.relu, [x], CFG)
            print(n, out.get("median_us"), out.get("host_us"), out.get("host_check"))
            assert out["host_agrees"], out


def test_side_stream_still_flagged_through_the_cross_check():
    a = torch.randn(4096, 4096, device="cuda")
    x = torch.randn(1024, device="cuda")
    side = torch.cuda.Stream()

    def sneaky(inp):
        out = inp * 2
        with torch.cuda.stream(side):
            for _ in range(8):
                torch.mm(a, a)
        return out

    out = child_timing.measure(sneaky, [x], CFG)
    print(out.get("host_check"))
    assert not out["host_agrees"] and out["host_check"]["action"] == "flag", out


def test_probe_window_numbers_are_plausible():
    x = torch.randn(1 << 22, device="cuda")
    win = timing.probe_window(torch.relu, [x])
    assert win["probe_event_us"] > 0 and win["probe_host_us"] >= win["probe_event_us"] * 0.5
    assert win["host_us"] > 0 and win["host_batch_us"] > 0 and win["probe_reps"] == 1
    long = timing.probe_window(torch.relu, [x], target_us=600.0)  # the probe as long as the candidate
    print(win, long)
    assert long["probe_reps"] > 1 and 300.0 <= long["probe_event_us"] <= 1200.0
    assert long["probe_batch_us"] >= long["probe_event_us"] * 0.5


def test_builtin_solutions_verify_while_another_process_loads_the_gpu(loaded_gpu):
    from leap.sandbox import verify_many
    from leap.tasks.solutions import reference_solution
    from leap.tasks.suite import builtin_tasks

    pairs = [(t, reference_solution(t)) for t in builtin_tasks(level=1) if reference_solution(t)][:12]
    verdicts = dict(verify_many(pairs, device="cuda"))
    bad = {pairs[i][0].name: (v.status, v.feedback, v.detail) for i, v in verdicts.items() if v.status != "ok"}
    assert not bad, bad
