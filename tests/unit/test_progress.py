"""`leap.progress.Progress` off a terminal: a line per advance (throttled), and heartbeat lines naming the
running stage while nothing advances — driven by events and counts, not by wall-clock thresholds."""

from __future__ import annotations

import io
import threading

from leap.progress import Progress


class _Stream(io.StringIO):
    """A non-terminal stream that signals each written line."""

    def __init__(self):
        super().__init__()
        self.wrote = threading.Event()

    def write(self, s: str) -> int:
        n = super().write(s)
        self.wrote.set()
        return n


def test_heartbeat_names_the_running_stage_and_advances_print_lines():
    out = _Stream()
    bar = Progress(3, label="train", every_s=0.05, stream=out)
    bar.stage("step 1: rollouts (generation + sandbox)")
    assert out.wrote.wait(10), "no heartbeat line while a stage was running"
    bar.advance(1, "reward=0.2")
    bar.advance(2, "reward=0.3")  # the last advance always prints
    bar.close()
    lines = out.getvalue().splitlines()
    beats = [ln for ln in lines if "running: step 1: rollouts" in ln]
    assert beats and beats[0].startswith("train 0/3")
    assert any(ln.startswith("train 3/3  reward=0.3") for ln in lines), lines


def test_disabled_and_terminal_modes():
    out = _Stream()
    bar = Progress(2, label="eval", enabled=False, every_s=0.01, stream=out)
    bar.stage("x")
    bar.advance(2)
    bar.close()
    assert out.getvalue() == ""
    term = io.StringIO()
    with Progress(2, label="eval", stream=term, terminal=True) as bar:  # the rich bar, to the given stream
        bar.stage("batch 1")
        bar.advance(2)
    assert "eval" in term.getvalue() and "2/2" in term.getvalue()


def test_a_total_learned_later_shows_in_the_lines_and_on_the_bar():
    out = _Stream()
    with Progress(0, label="verifying", every_s=60, stream=out) as bar:
        bar.set_total(4)
        bar.advance(4, "ok")  # reaching the total always prints
    assert "verifying 4/4  ok" in out.getvalue()
    term = io.StringIO()
    with Progress(0, label="verifying", stream=term, terminal=True) as bar:
        bar.set_total(3)
        bar.advance(3)
    assert "3/3" in term.getvalue()
