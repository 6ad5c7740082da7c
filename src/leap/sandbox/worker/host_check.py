"""The host-clock cross-check's decision: other load on the GPU, or work outside the measured stream?

The events see only the measured stream; a device-wide synchronize on the host clock sees everything the
candidate queued, so host time far above the events means hidden work (side streams). But other load on
the same GPU (another process's context time-slicing with ours, a busy host) also adds host time on
every synchronize while the events, recorded when our context runs, do not see it. To tell the two
apart the child times a *probe* in the same window: plain work on the measured stream as long as the
candidate's event time, timed the same ways (per call and in a back-to-back batch). Load delays the probe
as much as the candidate; hidden work delays only the candidate.

`decide` is pure (numbers in, action out) and never rejects in doubt: the first trip is always re-timed,
excess that the probe's excess explains is re-timed and finally accepted, and only excess that the
same-window probe does not explain, seen on two windows, is flagged.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Literal

Action = Literal["ok", "retime", "flag"]
EXPLAIN_FACTOR = 2.0  # candidate excess up to this many times the probe's excess counts as load


@dataclass(frozen=True)
class Window:
    """One timing window, microseconds per call. ``probe_*``: the probe timed in the same window, per call
    and per call of a batch (None: not measured); ``other_gpu_processes``: other processes NVML sees on the
    device (None: unknown; recorded for the report, the probe decides)."""

    event_us: float
    host_us: float | None
    host_batch_us: float | None = None
    probe_event_us: float | None = None
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


def excess_us(event_us: float, host_us: float | None, tolerance: float, slack_us: float) -> float:
    """Host time beyond what the events allow (``event * (1 + tol) + slack``); <= 0 when they agree."""
    if host_us is None:
        return 0.0
    return host_us - (event_us * (1.0 + tolerance) + slack_us)


def decide(w: Window, *, attempt: int, max_attempts: int = 3, tolerance: float = 0.10,
           slack_us: float = 100.0) -> Decision:
    """What to do with window number ``attempt`` (0-based) of at most ``max_attempts``."""
    exc = max(excess_us(w.event_us, w.host_us, tolerance, slack_us),
              excess_us(w.event_us, w.host_batch_us, tolerance, slack_us))
    if exc <= 0:
        return Decision("ok", "host clock agrees with the events", exc)
    last = attempt >= max_attempts - 1
    if w.probe_event_us is None or w.probe_host_us is None:  # nothing to compare against: never reject
        return Decision("ok" if last else "retime", "no probe; host excess not attributable", exc)
    p_exc = max(excess_us(w.probe_event_us, h, tolerance, slack_us)
                for h in (w.probe_host_us, w.probe_batch_us) if h is not None)
    if p_exc > 0 and exc <= EXPLAIN_FACTOR * p_exc:
        why = "other load on the GPU: the probe kernel shows the same host excess"
        return Decision("ok" if last else "retime", why, exc, p_exc)
    if attempt == 0 or (p_exc > 0 and not last):  # a burst of load may have hit only the candidate
        return Decision("retime", "host excess not explained by the probe; re-timing", exc, p_exc)
    return Decision("flag", "host excess the same-window probe does not show: work outside the measured "
                    "stream", exc, p_exc)
