"""Races between the programs of one launch, for Triton's CPU interpreter (CPU checks only).

The interpreter runs a launch's programs one after another, each to its end, so a kernel whose programs talk
through global memory without atomics gets the answer a GPU would not give: its programs run concurrently
there. Red-team round 27: blocks adding into ``out[row]`` with a plain load and store (updates lost on a GPU),
a scan block reading the previous block's last output with nothing to wait on, every block sharing one scratch
row. A launch keeps, per element of its tensor arguments (at the element's first byte), which program last wrote
it (`ATOMIC` after an atomic); a program that reads what another program of the launch wrote, or writes a
different value over it, gets `Race` (programs storing the same value redundantly are no race). Atomics may meet
atomics, and an atomic makes the writes of the programs whose atomics hit the same address before visible. Threads
within a program are not modelled. Elements are tracked per byte, so a wide store read back in narrower pieces
(an int64 written, its upper int32 read) is seen too.

What one serial order cannot show (a program reading what another overwrites later, carries through atomics
alone: round 28) a second order can: the child's poison re-run runs every launch's programs in reverse grid order
(`reverse_programs`), and an output that then differs must still match the reference.
"""

from __future__ import annotations

import numpy as np

UNWRITTEN, ATOMIC = -1, -2
_REVERSED = [False]  # the running forward's program order (`reverse_programs`, read by the patched grid index)


def reverse_programs(on: bool) -> None:
    """Run the programs of every launch from now on in reverse grid order (``on``) or in the grid's order."""
    _REVERSED[0] = bool(on)


def grid_index(x: int, y: int, z: int, dims: tuple) -> tuple[int, int, int]:
    """The program the interpreter's ``(x, y, z)``-th step runs: itself, or its mirror when reversed."""
    if not _REVERSED[0]:
        return x, y, z
    return dims[0] - 1 - x, dims[1] - 1 - y, dims[2] - 1 - z


class Race(RuntimeError):
    """Two programs of one launch meeting in global memory without atomics."""


class Writers:
    """Which program of the running launch last wrote each element (its first byte) of each written storage (keyed
    by the storage's start)."""

    def __init__(self):
        self.shadow: dict[int, np.ndarray] = {}
        self.released: dict[tuple[int, int], set[int]] = {}  # atomic address -> programs whose atomics hit it
        self.visible: dict[int, set[int]] = {}  # program -> programs whose writes it has acquired

    def _synchronise(self, start: int, off: np.ndarray, program: int) -> None:
        """An atomic (acq_rel, Triton's default) at ``off``: the program acquires the writes of every program whose
        atomics hit the address before (the "last program finalises" reduction: round 28), and releases its own."""
        seen = self.visible.setdefault(program, set())
        for o in np.unique(off).tolist():
            earlier = self.released.setdefault((start, o), set())
            seen |= earlier
            earlier.add(program)

    def note(self, addr: np.ndarray, span: np.ndarray, starts: np.ndarray, ends: np.ndarray, kind: str,
             program: int, unchanged=None, itemsize: int = 1) -> None:
        """Record ``kind`` ("load", "store" or "atomic") by ``program`` on the ``itemsize`` bytes at each of ``addr``
        (in the spans ``span`` index); raise `Race` where another program wrote first. ``unchanged`` (stores): a
        callable giving, per address, whether the store writes the value already there: programs writing the same
        value are no race."""
        if itemsize > 1:  # every byte of each element
            addr = (addr[:, None] + np.arange(itemsize, dtype=np.uint64)).ravel()
            span = np.repeat(span, itemsize)
            if unchanged is not None:
                lanes = unchanged
                unchanged = lambda: np.repeat(np.asarray(lanes(), dtype=bool), itemsize)  # noqa: E731
        for i in np.unique(span):
            start = int(starts[i])
            shadow = self.shadow.get(start)
            if shadow is None:
                if kind == "load":
                    continue
                shadow = self.shadow[start] = np.full(int(ends[i]) - start, UNWRITTEN, dtype=np.int32)
            off = (addr[span == i] - np.uint64(start)).astype(np.int64)
            prev = shadow[off]
            if kind == "atomic":
                self._synchronise(start, off, program)
                bad = (prev >= 0) & (prev != program)
            else:
                bad = (prev != UNWRITTEN) & (prev != program)
            acquired = self.visible.get(program)
            if acquired and bad.any():
                bad &= ~np.isin(prev, np.fromiter(acquired, dtype=np.int32, count=len(acquired)))
            if kind == "store" and bad.any() and unchanged is not None:
                bad &= ~np.asarray(unchanged(), dtype=bool)[span == i]
            if bad.any():
                other = int(prev[bad][0])
                who = "an atomic of another program" if other == ATOMIC else f"program {other}"
                what = "reads" if kind == "load" else "writes over"
                raise Race(f"program {program} of a launch {what} memory that {who} of the same launch wrote, without "
                           "atomics: on a GPU the programs run at the same time, so the result depends on their "
                           "timing (a race)")
            if kind != "load":
                shadow[off] = ATOMIC if kind == "atomic" else program
