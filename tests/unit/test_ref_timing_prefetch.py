"""`leap.sandbox.judge.ref_timing.prefetch`: a task's reference timing is measured once per (task, GPU) in the
background, concurrent callers wait for that one measurement, and a failed measurement is left for the
candidate that needs it to meet again. The measurement itself is replaced here (it needs a GPU; the real one
runs in tests/gpu/test_sandbox_gpu.py)."""

from __future__ import annotations

import threading
import time

import pytest

from leap.sandbox.judge import ref_timing
from leap.sandbox.judge.verifier import Prepared
from leap.tasks.suite import get_builtin


@pytest.fixture
def measured(monkeypatch):
    calls: list[int] = []
    gate = threading.Event()

    def fake(task, device, *, inputs, init_inputs, config=None, hold=None):
        calls.append(len(inputs))
        gate.wait(10)
        if getattr(config, "fail", False):
            raise RuntimeError("reference failed")
        return 100.0, 50.0

    monkeypatch.setattr(ref_timing.reference, "reference_timings", fake)
    return calls, gate


def _prep() -> Prepared:
    return Prepared(init_inputs=[], trials=[type("T", (), {"inputs": [1, 2]})(), object()], refs=[object()],
                    skipped=0, device="cuda")


def test_one_background_measurement_per_task_and_gpu(measured):
    calls, gate = measured
    task, memo = get_builtin("relu_fp32"), {}
    first = ref_timing.prefetch(task, 0, _prep(), None, memo, None)
    assert first is not None and ref_timing.prefetch(task, 0, _prep(), None, memo, None) is None  # under way
    waiter = threading.Thread(target=lambda: ref_timing.reference_times(task, 0, _prep(), None, memo, None))
    waiter.start()
    time.sleep(0.2)
    assert waiter.is_alive()  # the candidate that needs the timing waits for the one measurement
    gate.set()
    first.join(5)
    waiter.join(5)
    assert calls == [2] and memo[(task.name, task.source_hash, 0)] == (100.0, 50.0)
    assert ref_timing.prefetch(task, 0, _prep(), None, memo, None) is None  # memoised: nothing to start
    other = ref_timing.prefetch(task, 1, _prep(), None, memo, None)  # another GPU is another key
    assert other is not None
    other.join(5)
    assert memo[(task.name, task.source_hash, 1)] == (100.0, 50.0)


def test_a_failed_background_measurement_is_met_again_by_the_candidate(measured):
    calls, gate = measured
    gate.set()
    task, memo = get_builtin("softmax_fp32"), {}
    cfg = type("Cfg", (), {"fail": True})()
    t = ref_timing.prefetch(task, 0, _prep(), cfg, memo, None)
    t.join(5)
    assert not memo and calls == [2]
    with pytest.raises(RuntimeError, match="reference failed"):
        ref_timing.reference_times(task, 0, _prep(), cfg, memo, None)
    assert calls == [2, 2]
    again = ref_timing.prefetch(task, 0, _prep(), cfg, memo, None)  # may be tried again later
    assert again is not None
    again.join(5)
