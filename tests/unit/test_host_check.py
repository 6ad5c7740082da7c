"""The host-clock cross-check's decision (`leap.sandbox.worker.host_check.decide`) on recorded numbers:
other load on the GPU is re-timed and accepted, work outside the measured stream is flagged."""

from leap.sandbox.worker.host_check import Window, decide, excess_us


def test_agreeing_clocks_are_ok_at_once():
    d = decide(Window(event_us=250.0, host_us=290.0, host_batch_us=240.0), attempt=0)
    assert d.action == "ok" and d.excess_us <= 0


def test_first_trip_is_always_retimed_never_flagged():
    # side-stream-like numbers, but the first window could be a burst of load: re-time
    w = Window(event_us=8.0, host_us=9000.0, probe_event_us=40.0, probe_host_us=60.0)
    assert decide(w, attempt=0).action == "retime"


def test_side_stream_on_a_quiet_gpu_is_flagged_on_the_second_window():
    # events see only `x * 2`; 8 matmuls on a side stream add ms on the host clock; the probe is clean
    w = Window(event_us=8.0, host_us=9000.0, host_batch_us=8800.0, probe_event_us=40.0, probe_host_us=60.0,
               other_gpu_processes=1)
    d = decide(w, attempt=1)
    assert d.action == "flag" and d.excess_us > 8000 and d.probe_excess_us < 0


def test_load_that_delays_the_probe_alike_is_retimed_then_accepted():
    # a generating model on the same GPU: every synchronize waits ~1.5 ms for a time slice
    w = Window(event_us=120.0, host_us=1800.0, probe_event_us=45.0, probe_host_us=1650.0, other_gpu_processes=3)
    assert [decide(w, attempt=a, max_attempts=3).action for a in range(3)] == ["retime", "retime", "ok"]
    assert "other load" in decide(w, attempt=2).reason


def test_hidden_work_beyond_what_load_explains_is_still_flagged():
    # load adds ~0.3 ms to the probe, the candidate hides 10 ms: flagged on the last window
    w = Window(event_us=50.0, host_us=10400.0, probe_event_us=45.0, probe_host_us=450.0)
    actions = [decide(w, attempt=a, max_attempts=3).action for a in range(3)]
    assert actions == ["retime", "retime", "flag"]


def test_without_a_probe_it_never_rejects():
    w = Window(event_us=10.0, host_us=5000.0)
    assert [decide(w, attempt=a, max_attempts=2).action for a in range(2)] == ["retime", "ok"]


def test_batch_excess_counts_too():
    w = Window(event_us=100.0, host_us=150.0, host_batch_us=3000.0, probe_event_us=40.0, probe_host_us=50.0)
    assert decide(w, attempt=1).action == "flag"
    assert excess_us(100.0, 150.0, 0.10, 100.0) < 0 < excess_us(100.0, 3000.0, 0.10, 100.0)


def test_the_probe_batch_explains_batch_excess_from_load():
    # time-slicing: a back-to-back batch of 300 us calls spans slices of the other context; so does a batch
    # of the same-length probe, one window (2026-12-03: a correct gelu rejected when only a short probe
    # was measured, per call)
    w = Window(event_us=310.0, host_us=420.0, host_batch_us=2700.0, probe_event_us=300.0, probe_host_us=400.0,
               probe_batch_us=2400.0)
    assert [decide(w, attempt=a).action for a in range(3)] == ["retime", "retime", "ok"]
    hidden = Window(event_us=310.0, host_us=420.0, host_batch_us=9000.0, probe_event_us=300.0, probe_host_us=400.0,
                    probe_batch_us=2400.0)
    assert decide(hidden, attempt=2).action == "flag"
