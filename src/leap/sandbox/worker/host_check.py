"""The timing cross-check's decision: other load on the GPU, or work outside the measured stream?

The events see only the measured stream; a device-wide synchronize sees everything the candidate
queued. The signal is the *tail* (`leap.sandbox.worker.timing`): how long that synchronize still waits
once the measured stream's end event has completed. Hidden work that outlasts the measured stream shows
there. Unlike the plain host clock, the tail does not grow with the candidate's launch overhead on a busy
CPU or with another context's time slices on the GPU, which delay the end event too; what is left of load
(a descheduled thread, a slow driver call) shows in the tail of a *probe*: plain work on the measured
stream as long as the candidate, timed in the same window.

`decide` is pure (numbers in, action out) and never rejects in doubt: the first trip is always re-timed,
a tail that the probe's tail explains is re-timed and finally accepted, and only a tail that the
same-window probe does not show, seen on two windows, is flagged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Action = Literal["ok", "retime", "flag"]
EXPLAIN_FACTOR = 2.0  # a candidate tail excess up to this many times the probe's counts as load


@dataclass(frozen=True)
class Window:
    """One timing window, microseconds. ``tail_us``: the candidate's median tail per call; ``tail_batch_us``:
    after a back-to-back batch; ``probe_*``: the probe in the same window (None: not measured). Host-clock
    times and ``other_gpu_processes`` (what NVML sees on the device) are recorded for the report only."""

    event_us: float
    tail_us: float | None
    tail_batch_us: float | None = None
    probe_event_us: float | None = None
    probe_tail_us: float | None = None
    probe_tail_batch_us: float | None = None
    host_us: float | None = None
    host_batch_us: float | None = None
    probe_host_us: float | None = None
    probe_batch_us: float | None = None
    other_gpu_processes: int | None = None


@dataclass(frozen=True)
class Decision:
    action: Action
    reason: str
    excess_us: float = 0.0
    probe_excess_us: float | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def tail_allowed_us(event_us: float, tolerance: float = 0.10, slack_us: float = 100.0) -> float:
    """The most a device-wide synchronize may still wait after the measured stream finished:
    ``event * tol + slack`` (the driver's own latency; hidden work beyond it is flagged)."""
    return event_us * tolerance + slack_us


def excess_us(event_us: float, tail_us: float | None, tolerance: float, slack_us: float) -> float:
    """Tail beyond what the events allow (`tail_allowed_us`); <= 0 when it fits (or was not measured)."""
    if tail_us is None:
        return 0.0
    return tail_us - tail_allowed_us(event_us, tolerance, slack_us)


def decide(w: Window, *, attempt: int, max_attempts: int = 3, tolerance: float = 0.10,
           slack_us: float = 100.0) -> Decision:
    """What to do with window number ``attempt`` (0-based) of at most ``max_attempts``."""
    exc = max(excess_us(w.event_us, w.tail_us, tolerance, slack_us),
              excess_us(w.event_us, w.tail_batch_us, tolerance, slack_us))
    if exc <= 0:
        return Decision("ok", "no work outlasts the measured stream", exc)
    last = attempt >= max_attempts - 1
    if w.probe_event_us is None or w.probe_tail_us is None:  # nothing to compare against: never reject
        return Decision("ok" if last else "retime", "no probe; tail not attributable", exc)
    p_exc = max(excess_us(w.probe_event_us, t, tolerance, slack_us)
                for t in (w.probe_tail_us, w.probe_tail_batch_us) if t is not None)
    if p_exc > 0 and exc <= EXPLAIN_FACTOR * p_exc:
        why = "load on the machine: the probe kernel shows the same tail"
        return Decision("ok" if last else "retime", why, exc, p_exc)
    if attempt == 0 or (p_exc > 0 and not last):  # a burst of load may have hit only the candidate
        return Decision("retime", "tail not explained by the probe; re-timing", exc, p_exc)
    return Decision("flag", "work outlasts the measured stream and the same-window probe shows no such tail",
                    exc, p_exc)
