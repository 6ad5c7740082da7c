"""The timing cross-check's decision (`leap.sandbox.worker.host_check.decide`) on recorded numbers: load on
the machine is re-timed and accepted, work that outlasts the measured stream is flagged."""

from leap.sandbox.worker.host_check import Window, decide, excess_us


def test_a_short_tail_is_ok_at_once_whatever_the_host_clock_says():
    # 2026-12-03, a 0.5B model generating on the same H200: a correct 13 us Triton kernel took 147 us per call
    # on the host clock (launch overhead on a busy CPU) and 208 us per call back to back; the plain host-clock
    # check refused it. The tail (sync after the measured stream finished) is what counts.
    d = decide(Window(event_us=12.9, tail_us=9.0, tail_batch_us=11.0, host_us=146.9, host_batch_us=208.1), attempt=0)
    assert d.action == "ok" and d.excess_us <= 0


def test_first_trip_is_always_retimed_never_flagged():
    # side-stream-like numbers, but the first window could be a burst of load: re-time
    w = Window(event_us=8.0, tail_us=9000.0, probe_event_us=40.0, probe_tail_us=6.0)
    assert decide(w, attempt=0).action == "retime"


def test_side_stream_on_a_quiet_gpu_is_flagged_on_the_second_window():
    # events see only `x * 2`; 8 matmuls on a side stream outlast it by ms; the probe's tail is clean
    w = Window(event_us=8.0, tail_us=9000.0, tail_batch_us=88000.0, probe_event_us=40.0, probe_tail_us=6.0,
               other_gpu_processes=1)
    d = decide(w, attempt=1)
    assert d.action == "flag" and d.excess_us > 8000 and d.probe_excess_us < 0


def test_a_slow_synchronize_that_delays_the_probe_alike_is_retimed_then_accepted():
    # a loaded host: every synchronize returns late, after the measured stream's event as well
    w = Window(event_us=120.0, tail_us=400.0, probe_event_us=115.0, probe_tail_us=350.0, other_gpu_processes=3)
    assert [decide(w, attempt=a, max_attempts=3).action for a in range(3)] == ["retime", "retime", "ok"]
    assert "load" in decide(w, attempt=2).reason


def test_hidden_work_beyond_what_load_explains_is_still_flagged():
    # load adds ~0.3 ms to the probe's tail, the candidate hides 10 ms: flagged on the last window
    w = Window(event_us=50.0, tail_us=10400.0, probe_event_us=45.0, probe_tail_us=450.0)
    actions = [decide(w, attempt=a, max_attempts=3).action for a in range(3)]
    assert actions == ["retime", "retime", "flag"]


def test_without_a_probe_it_never_rejects():
    w = Window(event_us=10.0, tail_us=5000.0)
    assert [decide(w, attempt=a, max_attempts=2).action for a in range(2)] == ["retime", "ok"]


def test_batch_tail_counts_too():
    # hidden work shorter than one call's tail allowance piles up over a back-to-back batch
    w = Window(event_us=100.0, tail_us=60.0, tail_batch_us=3000.0, probe_event_us=100.0, probe_tail_us=8.0,
               probe_tail_batch_us=9.0)
    assert decide(w, attempt=1).action == "flag"
    assert excess_us(100.0, 60.0, 0.10, 100.0) < 0 < excess_us(100.0, 3000.0, 0.10, 100.0)


def test_the_allowance_grows_with_the_event_time():
    assert excess_us(1000.0, 190.0, 0.10, 100.0) < 0 < excess_us(100.0, 190.0, 0.10, 100.0)
    assert excess_us(50.0, None, 0.10, 100.0) == 0.0
