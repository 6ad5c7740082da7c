"""Races between the programs of one launch, for Triton's CPU interpreter (CPU checks only).

The interpreter runs a launch's programs one after another, each to its end, so a kernel whose programs talk
through global memory without atomics gets the answer a GPU would not give: its programs run concurrently
there. Red-team round 27: blocks adding into ``out[row]`` with a plain load and store (updates lost on a GPU),
a scan block reading the previous block's last output with nothing to wait on, every block sharing one scratch
row. A launch keeps, per byte of its written tensor arguments, which program last wrote it (and whether with an
atomic) and when; a program that reads what another program of the launch wrote, or writes a different value over
it, gets `Race` (programs storing the same value redundantly are no race), unless the write happened before it in
the memory model's sense: the writer released an address with an atomic after the write and the reader acquired
that address after the release (vector clocks, transitive; round 30: only writes *before* the release count, and
``sem="relaxed"`` or ``scope="cta"`` atomics order nothing). Atomics may meet atomics. Within a program, a plain
load of bytes the program stored since its last ``tl.debug_barrier`` from another lane (position in the block) is
a race too: on a GPU those lanes are other threads (round 30); so is a store over such bytes with another value, and
a scalar load is every thread's (round 32), a store of one value by every thread to one address is every thread's
(round 33). An atomic must have acquired another program's plain store to the bytes it updates before it, not through
its own acquire (round 32: a ticket-0 program zeroing the accumulator). Bytes, not
elements: a wide store read back in narrower pieces (an int64 written, its upper int32 read) is seen too.

What one serial order cannot show (a program reading what another overwrites later, carries through atomics
alone: round 28) another order can: the child's poison re-run runs every launch's programs in reverse grid order,
and every trial after the first in a random order drawn from a secret the candidate cannot read (`program_order`):
an output that then differs must still match the reference (round 30: a kernel that switched to an order-dependent
path after its first calls). Open: a kernel right under every serial order but not under concurrent execution
(atomics-only protocols with no wait, a read-modify-write split into two atomics) needs an interleaving scheduler.
"""

from __future__ import annotations

import functools

import numpy as np

UNWRITTEN = -1  # a byte no program of the launch wrote; -3 - p: written by program p's atomic
EVERY_LANE = -1  # the lane of a scalar load: every thread of the program runs it on a GPU (round 32)
ALL_LANES = -2  # stored by every thread of the program (one block, at least one element a thread, one address)
_ORDER: list = [None]  # the running forward's program order (`program_order`), read by the patched grid index
_PERMS: dict = {}  # (n, what) -> the current order of n programs or lanes (cleared when the order changes)


def program_order(order) -> None:
    """Run the programs of every launch from now on in the grid's order (None), in reverse ("reverse") or in a
    random order drawn from the int seed ``order`` (the same seed and grid give the same order)."""
    _ORDER[0] = order
    _PERMS.clear()


def _permutation(n: int, what: str) -> np.ndarray | None:
    """The current order of ``n`` programs of a grid or lanes of an access (``what``): None for the given order,
    reversed, or shuffled by the seed."""
    order = _ORDER[0]
    if order is None or n < 2:
        return None
    perm = _PERMS.get((n, what))
    if perm is None:
        perm = _PERMS[(n, what)] = (np.arange(n)[::-1] if order == "reverse" else
                                    np.random.default_rng([int(order) & 0xFFFFFFFF, n, *what.encode()]).permutation(n))
    return perm


def grid_index(x: int, y: int, z: int, dims: tuple) -> tuple[int, int, int]:
    """The program the interpreter's ``(x, y, z)``-th step runs under the current `program_order`."""
    if _ORDER[0] is None:
        return x, y, z
    gy, gz = int(dims[1]), int(dims[2])  # a grid function may give Triton scalars
    perm = _permutation(int(dims[0]) * gy * gz, f"grid {gy} {gz}")
    if perm is None:
        return x, y, z
    k = int(perm[(x * gy + y) * gz + z])
    return k // (gy * gz), (k // gz) % gy, k % gz


def lane_permutation(n: int) -> np.ndarray | None:
    """The order in which the lanes of one access are served (an atomic's lanes on one address, a ``can_reorder``
    reshape's elements), which Triton leaves open: the given order in the grid's order, else reversed or shuffled
    with the programs (round 31: a vector atomic's old values formed an exact prefix sum in index order)."""
    return _permutation(n, "lanes")


class Race(RuntimeError):
    """Two programs of one launch meeting in global memory without atomics."""


class Writers:
    """Per written storage of the running launch (keyed by its start): each byte's last writer (`UNWRITTEN`, a
    program, or ``-3 - p`` for program p's atomic) and the clock of that write; per program, what it has acquired."""

    def __init__(self):
        self.shadow: dict[int, np.ndarray] = {}
        self.when: dict[int, np.ndarray] = {}
        self.clock = 0
        self.released: dict[tuple[int, int], dict[int, int]] = {}  # atomic address -> program -> clock released
        self.acquired: dict[int, dict[int, int]] = {}  # program -> program -> clock up to which its writes are seen
        self.lane: dict[int, np.ndarray] = {}  # per written byte: the lane (position in its block) that stored it
        self.barrier: dict[int, int] = {}  # program -> clock of its last tl.debug_barrier
        self.plain: dict[int, tuple[np.ndarray, np.ndarray]] = {}  # per byte an atomic wrote over a plain store:
        # that store's program and clock (made lazily; round 32)

    def at_barrier(self, program: int) -> None:
        """``tl.debug_barrier`` in ``program``: its lanes see each other's stores from here on."""
        self.clock += 1
        self.barrier[program] = self.clock

    def _acquire(self, start: int, off: np.ndarray, program: int) -> None:
        seen = self.acquired.setdefault(program, {})
        for o in np.unique(off).tolist():
            for q, c in self.released.get((start, o), {}).items():
                if c > seen.get(q, -1):
                    seen[q] = c

    def _release(self, start: int, off: np.ndarray, program: int, now: int) -> None:
        carried = self.acquired.get(program, {})  # transitive: what this program saw goes along
        for o in np.unique(off).tolist():
            rel = self.released.setdefault((start, o), {})
            rel[program] = now
            for q, c in carried.items():
                if c > rel.get(q, -1):
                    rel[q] = c

    def _unseen(self, owner: np.ndarray, when: np.ndarray, program: int, seen: dict | None = None) -> np.ndarray:
        """Which of these writes (by ``owner`` at ``when``) ``program`` has not acquired (``seen``: as of then)."""
        seen = self.acquired.get(program) if seen is None else seen
        if not seen:
            return np.ones(owner.shape, dtype=bool)
        progs, inv = np.unique(owner, return_inverse=True)
        upto = np.array([seen.get(int(q), -1) for q in progs], dtype=np.int64)
        return when > upto[inv]

    def note(self, addr: np.ndarray, span: np.ndarray, starts: np.ndarray, ends: np.ndarray, kind: str,
             program: int, unchanged=None, itemsize: int = 1, acquire: bool = True, release: bool = True,
             lanes: np.ndarray | None = None, fence: bool = True) -> None:
        """Record ``kind`` by ``program`` on the ``itemsize`` bytes at each of ``addr`` (in the spans ``span``
        index): "load", "store", "atomic" (a read-modify-write), "atomic_load" or "atomic_store"; an atomic's
        ``acquire``/``release`` follow its ``sem`` and ``scope``. Raise `Race` where another program's write was not
        made visible first. ``unchanged`` (stores): a callable giving, per address, whether the store writes the
        value already there: programs writing the same value are no race. ``lanes``: each address's position in
        its block (a scalar store or atomic is lane 0: one thread on a GPU; a scalar load is `EVERY_LANE`). A scalar
        atomic ends as a barrier for the program (Triton broadcasts its result to the program's threads through a
        barrier) unless ``fence`` is off: a relaxed scalar atomic whose result is unused is a bare ``red``/``st``
        with no ``bar.sync`` (round 33), so it orders nothing between the program's lanes. ``kind`` "volatile_load"
        (``tl.load(..., volatile=True)``: ``ld.volatile``, a strong relaxed load in PTX) meets atomics like a relaxed
        atomic load and is every lane's when scalar (round 33: a test-and-test-and-set spin on a flag)."""
        if itemsize > 1:  # every byte of each element
            addr = (addr[:, None] + np.arange(itemsize, dtype=np.uint64)).ravel()
            span = np.repeat(span, itemsize)
            lanes = None if lanes is None else np.repeat(lanes, itemsize)
            if unchanged is not None:
                per_lane = unchanged
                unchanged = lambda: np.repeat(np.asarray(per_lane(), dtype=bool), itemsize)  # noqa: E731
        atomic = kind.startswith("atomic")
        meets_atomics = atomic or kind == "volatile_load"  # ld.volatile is strong: it may read an atomic's write
        writes = kind in ("store", "atomic", "atomic_store")
        reads = not kind.endswith("store")
        acquire &= atomic and reads
        release &= atomic and writes
        self.clock += 1
        now = self.clock
        if unchanged is not None:  # evaluated once, when a check first needs it
            unchanged = functools.cache(lambda f=unchanged: np.asarray(f(), dtype=bool))
        for i in np.unique(span):
            start, sel = int(starts[i]), span == i
            off = (addr[sel] - np.uint64(start)).astype(np.int64)
            before = None  # what the program had acquired before this access (None: unchanged by it)
            if acquire:
                before = dict(self.acquired.get(program, {}))
                self._acquire(start, off, program)
            shadow = self.shadow.get(start)
            if shadow is None:
                if not writes:
                    continue
                shadow = self.shadow[start] = np.full(int(ends[i]) - start, UNWRITTEN, dtype=np.int32)
                self.when[start] = np.zeros(int(ends[i]) - start, dtype=np.int32)
                self.lane[start] = np.zeros(int(ends[i]) - start, dtype=np.int32)
            prev, when = shadow[off], self.when[start][off]
            own = (prev == program) | (prev == -3 - program)
            if reads and lanes is not None:  # loads and atomics
                self._lanes(own, when, self.lane[start][off], lanes[sel], program)
            if kind in ("store", "atomic_store") and lanes is not None:
                self._lanes(own, when, self.lane[start][off], lanes[sel], program,
                            None if unchanged is None else unchanged()[sel])
            if atomic:
                self._plain_first(start, off, prev, when, program, before)
            owner = np.where(prev <= -3, -3 - prev, prev)
            bad = (owner != UNWRITTEN) & (owner != program)
            if meets_atomics:
                bad &= prev > UNWRITTEN  # atomics meet atomics
            if bad.any():
                bad[bad] = self._unseen(owner[bad], when[bad], program)
            if kind in ("store", "atomic_store") and bad.any() and unchanged is not None:
                bad &= ~unchanged()[sel]
            if bad.any():
                other = int(prev[bad][0])
                who = f"an atomic of program {-3 - other}" if other <= -3 else f"program {other}"
                what = "reads" if kind in ("load", "atomic_load", "volatile_load") else "writes over"
                raise Race(f"program {program} of a launch {what} memory that {who} of the same launch wrote, with "
                           "nothing ordering the two (an atomic released after the write and acquired before the "
                           "access): on a GPU the programs run at the same time, so the result depends on their "
                           "timing (a race)")
            if writes and atomic and (prev >= 0).any():
                self._keep_plain(start, off, prev, when)
            if writes:
                shadow[off] = -3 - program if atomic else program
                self.when[start][off] = now
                if lanes is not None:
                    self.lane[start][off] = lanes[sel]
            if release:
                self._release(start, off, program, now)
        if fence and atomic and lanes is not None and lanes.size and not lanes.any() and np.unique(addr).size <= itemsize:
            self.at_barrier(program)  # a scalar atomic (one address, lane 0)

    def _lanes(self, own: np.ndarray, when: np.ndarray, stored_by: np.ndarray, lanes: np.ndarray, program: int,
               kept: np.ndarray | None = None) -> None:
        """Raise `Race` where ``program`` reads, in another lane, a byte it wrote since its last barrier; with
        ``kept`` (a store: per byte, whether it writes the value already there), where it stores over such a byte
        a different value (round 32: which of the two stores lands last is not defined on a GPU)."""
        since = own & (when > self.barrier.get(program, 0))
        bad = since & (stored_by != lanes)
        if kept is not None:  # every thread's earlier store of another value: a lagging warp's may land after this
            bad = (bad | (since & (stored_by == ALL_LANES))) & ~kept
            if bad.any():
                raise Race(f"program {program} stores over memory that another lane of the same program stored, with "
                           "no tl.debug_barrier between: on a GPU the lanes are other threads, so either store may "
                           "land last (a race within a program)")
            return
        bad &= stored_by != ALL_LANES  # a read of what every thread stored: each reads its own store (same value)
        if bad.any():
            raise Race(f"program {program} reads memory that another lane of the same program wrote, with no "
                       "tl.debug_barrier between: on a GPU the lanes are other threads, so the load may not see the "
                       "store (a race within a program)")

    def _keep_plain(self, start: int, off: np.ndarray, prev: np.ndarray, when: np.ndarray) -> None:
        """An atomic writes over plain stores: keep their program and clock for `_plain_first`."""
        kept = self.plain.get(start)
        if kept is None:
            size = self.shadow[start].size
            kept = self.plain[start] = (np.full(size, UNWRITTEN, dtype=np.int32), np.zeros(size, dtype=np.int32))
        was = prev >= 0
        kept[0][off[was]], kept[1][off[was]] = prev[was], when[was]

    def _plain_first(self, start: int, off: np.ndarray, prev: np.ndarray, when: np.ndarray, program: int,
                     before: dict | None) -> None:
        """Raise `Race` where an atomic of ``program`` updates bytes whose last plain store was another program's and
        was not acquired *before* this atomic (``before``; None: the atomic acquired nothing, the current state). Serially the store always comes first; on a GPU the
        atomic may land before it and be wiped (round 32: the program drawing ticket 0 zeroes the accumulator the
        others add into). An acquire by this very atomic does not order the store before it."""
        writer, at = prev.copy(), when.copy()
        kept = self.plain.get(start)
        if kept is not None:
            over = prev <= -3
            writer[over], at[over] = kept[0][off][over], kept[1][off][over]
        bad = (writer >= 0) & (writer != program)
        if bad.any():
            bad[bad] = self._unseen(writer[bad], at[bad], program, before)
        if bad.any():
            raise Race(f"an atomic of program {program} updates memory that program {int(writer[bad][0])} of the same "
                       "launch stored with a plain store, with nothing ordering that store before the atomic (an "
                       "atomic released after the store and acquired before this one): on a GPU the atomic may land "
                       "first and the store wipe it (a race)")
