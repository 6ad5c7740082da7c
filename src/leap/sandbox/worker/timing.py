"""GPU timing of a forward call (DESIGN.md §3 step 4). Runs inside the candidate's child process.

Every timer and CUDA function used here is bound at import, which happens in the forkserver before
any candidate code is loaded, so a candidate that patches ``time.perf_counter`` or
``torch.cuda.Event`` afterwards does not change what this module measures.

Protocol: warm-up calls; before each sample the L2 cache is flushed by writing a buffer of at least
twice its size (queried from the device properties); CUDA events around the call on the current
stream; the median of >= 30 samples.

Work hidden on side streams is invisible to the events but not to a device-wide synchronize. The check
is the *tail*: once the measured stream's end event has completed, how long a device-wide synchronize
still waits (per call, L2 flushed, synchronize before; and after a back-to-back batch). Hidden work
that outlasts the measured stream shows there; hidden work shorter than the measured stream ran inside
the events' span anyway. The tail is blind to what only delays both alike: the candidate's own launch
overhead on a busy CPU and another process's time slices on the GPU, which the plain host clock (still
recorded, ``host_us``) counts in full (2026-12-03: six correct kernels were refused that way while a
model generated on the same H200).
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import torch

from leap.sandbox.worker.host_check import excess_us

_perf = time.perf_counter
_Event = torch.cuda.Event
_record = torch.cuda.Event.record  # methods too: patching the class later changes nothing here
_event_sync = torch.cuda.Event.synchronize
_elapsed = torch.cuda.Event.elapsed_time
_fill = torch.Tensor.fill_
_sync = torch.cuda.synchronize
_props = torch.cuda.get_device_properties
_current_device = torch.cuda.current_device
_empty = torch.empty
_int8 = torch.int8
_median = statistics.median
_no_grad = torch.no_grad

DEFAULT_L2_BYTES = 128 << 20  # when the device properties do not say (larger than any current GPU's L2)


@dataclass
class TimingResult:
    """Microseconds per call. ``host_us``: median per call on the host clock; ``host_batch_us``: per call
    over a back-to-back batch; ``tail_us`` / ``tail_batch_us``: what a device-wide synchronize still waited
    after the measured stream finished (median per call; median over batches). ``host_agrees`` is False
    when the tail is beyond the tolerance (work outside the measured stream)."""

    median_us: float
    host_us: float | None
    samples: int
    min_us: float
    max_us: float
    mean_us: float
    std_us: float
    flush_bytes: int
    host_agrees: bool = True
    host_batch: int = 0
    host_batch_us: float | None = None
    tail_us: float | None = None
    tail_batch_us: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def l2_cache_bytes(device: int | None = None) -> int:
    """The device's L2 cache size in bytes (`DEFAULT_L2_BYTES` when the properties do not report it)."""
    try:
        size = int(getattr(_props(_current_device() if device is None else device), "L2_cache_size", 0))
    except Exception:  # noqa: BLE001 - no device / old torch
        size = 0
    return size if size > 0 else DEFAULT_L2_BYTES


def l2_flush_bytes(device: int | None = None, factor: float = 2.0) -> int:
    """Bytes to write before each sample: ``factor`` (>= 2) times the L2 size, rounded up to 1 MiB."""
    n = int(max(factor, 2.0) * l2_cache_bytes(device))
    return ((n + (1 << 20) - 1) >> 20) << 20


def summarize(samples_us: Sequence[float]) -> dict[str, float]:
    """Median, min, max, mean and standard deviation of samples (microseconds)."""
    xs = [float(x) for x in samples_us]
    if not xs:
        raise ValueError("no timing samples")
    mean = sum(xs) / len(xs)
    std = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
    return {"median_us": _median(xs), "min_us": min(xs), "max_us": max(xs), "mean_us": mean, "std_us": std}


def host_agrees(event_us: float, tail_us: float | None, tolerance: float = 0.10, slack_us: float = 100.0) -> bool:
    """Whether the tail fits the event median (`host_check.tail_allowed_us`); an unmeasured tail agrees."""
    return excess_us(event_us, tail_us, tolerance, slack_us) <= 0


def time_forward(fn: Callable[..., Any], args: Sequence[Any], *, warmup: int = 5, samples: int = 30,
                 flush_l2: bool = True, host_tolerance: float = 0.10, host_slack_us: float = 100.0,
                 host_batch: int = 10, min_warmup_ms: float = 100.0) -> TimingResult:
    """Time ``fn(*args)`` on the current CUDA device (see the module docstring); no autograd. Warm-up runs
    at least ``warmup`` calls and at least ``min_warmup_ms`` of wall time (clocks ramp up from idle; at
    most 1,000 calls), so short kernels are not timed on a cold GPU."""
    samples = max(1, int(samples))
    flush_bytes = l2_flush_bytes() if flush_l2 else 0
    flush = _empty(flush_bytes, dtype=_int8, device="cuda") if flush_bytes else None
    with _no_grad():
        t_warm, n = _perf(), 0
        while n < max(0, int(warmup)) or (n < 1000 and (_perf() - t_warm) * 1e3 < min_warmup_ms):
            fn(*args)
            n += 1
            if n % 8 == 0 or n >= warmup:
                _sync()
        _sync()
        times: list[float] = []
        for i in range(samples):
            if flush is not None:
                _fill(flush, i & 0x7F)
            times.append(_event_us(fn, *args))
        stats = summarize(times)
        host = host_b = tail = tail_b = None
        if host_batch > 0:  # per call: flush, device-wide sync, call, end event, device-wide sync (cold L2)
            per_call = []
            for i in range(max(5, host_batch)):
                if flush is not None:
                    _fill(flush, i & 0x7F)
                per_call.append(_host_tail_us(fn, *args))
            host, tail = _median_of(per_call, 0), _median_of(per_call, 1)
            # back to back: batches of calls, one end event and one device-wide sync after each batch
            batches = [_host_tail_us(_repeat, host_batch, fn, *args) for _ in range(3)]
            host_b, tail_b = _median_of(batches, 0, host_batch), _median_of(batches, 1)
    del flush
    med = stats["median_us"]
    agree = host_agrees(med, tail, host_tolerance, host_slack_us) and \
        host_agrees(med, tail_b, host_tolerance, host_slack_us)
    return TimingResult(samples=samples, flush_bytes=flush_bytes, host_us=host, host_batch_us=host_b,
                        host_batch=host_batch, host_agrees=agree, tail_us=tail, tail_batch_us=tail_b, **stats)


def probe_window(fn: Callable[..., Any], args: Sequence[Any], *, calls: int = 10, target_us: float | None = None,
                 batch: int = 10, max_probe_us: float = 20_000.0) -> dict[str, float]:
    """The cross-check's second look (`leap.sandbox.worker.host_check`), interleaved so load hits both
    alike: the candidate's tail beside a probe's. The probe is plain work on the measured stream as long as
    the candidate's event time (``target_us``; fills of an L2-flush-sized buffer, at most ``max_probe_us``),
    so its tail is what the driver and the machine's load alone leave after the measured stream. Per call:
    the probe, then the candidate (cold L2: the fill flushed it); then back-to-back batches of ``batch``
    calls of each, alternating. Medians in microseconds; host-clock times for the report."""
    buf = _empty(max(l2_flush_bytes(), 1 << 20), dtype=_int8, device="cuda")

    def probe(v: int, reps: int) -> None:
        for r in range(reps):
            _fill(buf, (v + r) & 0x7F)

    with _no_grad():
        probe(1, 1)
        one = max(min(_event_us(probe, 2, 1) for _ in range(3)), 1e-3)
        reps = max(1, min(int(round((target_us or 0.0) / one)), int(max_probe_us / one)))
        cand, prb, p_ev, cand_b, prb_b = [], [], [], [], []
        for i in range(max(3, calls)):
            prb.append(_host_tail_us(probe, i, reps))
            p_ev.append(_event_us(probe, i + 1, reps))
            cand.append(_host_tail_us(fn, *args))
        n = max(1, batch)
        for _ in range(3):
            cand_b.append(_host_tail_us(_repeat, n, fn, *args))
            prb_b.append(_host_tail_us(_repeat, n, probe, 0, reps))
    return {"host_us": _median_of(cand, 0), "tail_us": _median_of(cand, 1),
            "host_batch_us": _median_of(cand_b, 0, n), "tail_batch_us": _median_of(cand_b, 1),
            "probe_event_us": _median(p_ev), "probe_host_us": _median_of(prb, 0), "probe_tail_us": _median_of(prb, 1),
            "probe_batch_us": _median_of(prb_b, 0, n), "probe_tail_batch_us": _median_of(prb_b, 1),
            "probe_reps": reps}


def _median_of(pairs: list[tuple[float, float]], k: int, per: int = 1) -> float:
    """Median of element ``k`` of (host, tail) pairs, divided by ``per`` (calls per batch)."""
    return _median([x[k] for x in pairs]) / per


def _host_tail_us(work: Callable[..., Any], *args: Any) -> tuple[float, float]:
    """``work(*args)`` between device-wide synchronizes on the host clock, and its tail: how long the
    closing synchronize still waited after an event recorded on the measured stream had completed."""
    _sync()
    end = _Event()
    t0 = _perf()
    work(*args)
    _record(end)
    _event_sync(end)
    t1 = _perf()
    _sync()
    t2 = _perf()
    return (t2 - t0) * 1e6, (t2 - t1) * 1e6


def _repeat(n: int, work: Callable[..., Any], *args: Any) -> None:
    """``work(*args)`` ``n`` times back to back."""
    for _ in range(n):
        work(*args)


def _event_us(work: Callable[..., Any], *args: Any) -> float:
    """``work(*args)`` between CUDA events on the current stream, microseconds."""
    start, end = _Event(enable_timing=True), _Event(enable_timing=True)
    _record(start)
    work(*args)
    _record(end)
    _sync()
    return _elapsed(start, end) * 1000.0


def gpu_process_count() -> int | None:
    """Processes with a compute context on the current device according to NVML (ours included);
    None when pynvml is not installed or NVML does not answer."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        p = _props(_current_device())
        bus = f"{p.pci_domain_id:08x}:{p.pci_bus_id:02x}:{p.pci_device_id:02x}.0"
        handle = pynvml.nvmlDeviceGetHandleByPciBusId(bus)
        return len(pynvml.nvmlDeviceGetComputeRunningProcesses(handle))
    except Exception:  # noqa: BLE001 - NVML missing, old driver, no such attribute: unknown
        return None
