"""Red-team round 33: a relaxed scalar atomic is no barrier, a volatile load meets atomics, an atomic store over
another lane's store (`leap.sandbox.worker.interpreter_races.Writers`)."""

import numpy as np
import pytest

from leap.sandbox.worker.interpreter_races import EVERY_LANE, Race, Writers

STARTS, ENDS = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)


def _at(*offsets):
    return np.array(offsets, dtype=np.uint64), np.zeros(len(offsets), dtype=np.int64)


def _lanes(*lanes):
    return np.array(lanes, dtype=np.int32)


def test_a_relaxed_scalar_atomic_is_no_barrier():
    """sm_90: ``tl.atomic_add(p, 0, sem="relaxed")`` with an unused result is a bare ``red`` (no ``bar.sync``); an
    ordered one has ``bar.sync`` around it."""
    data, dummy = _at(0, 4), _at(32)
    w = Writers()
    w.note(*data, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0, 1))
    w.note(*dummy, STARTS, ENDS, "atomic", 0, itemsize=4, acquire=False, release=False, lanes=_lanes(0), fence=False)
    with pytest.raises(Race, match="another lane of the same program wrote"):
        w.note(*data, STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(1, 0))
    w.note(*dummy, STARTS, ENDS, "atomic", 0, itemsize=4, lanes=_lanes(0))  # acq_rel: a barrier
    w.note(*data, STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(1, 0))


def test_a_volatile_load_meets_atomics_but_not_plain_stores():
    """A spin ``tl.load(flag, volatile=True)`` on a flag another program set with an atomic is no race (ld.volatile is
    strong); it acquires nothing, and reading another program's plain store with it still races."""
    flag, data = _at(32), _at(0)
    w = Writers()
    w.note(*data, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0))
    w.note(*flag, STARTS, ENDS, "atomic", 0, itemsize=4, lanes=_lanes(0))  # releases the store
    w.note(*flag, STARTS, ENDS, "volatile_load", 1, itemsize=4, acquire=False, release=False,
           lanes=_lanes(EVERY_LANE), fence=False)
    with pytest.raises(Race, match="reads memory that program 0"):
        w.note(*data, STARTS, ENDS, "volatile_load", 1, itemsize=4, acquire=False, release=False,
               lanes=_lanes(EVERY_LANE), fence=False)
    w.note(*flag, STARTS, ENDS, "atomic", 1, itemsize=4, lanes=_lanes(0))  # the acquire after the spin
    w.note(*data, STARTS, ENDS, "load", 1, itemsize=4, lanes=_lanes(EVERY_LANE))


def test_a_volatile_scalar_load_is_no_barrier():
    data, flag = _at(0, 4), _at(32)
    w = Writers()
    w.note(*data, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0, 1))
    w.note(*flag, STARTS, ENDS, "volatile_load", 0, itemsize=4, acquire=False, release=False, lanes=_lanes(0),
           fence=False)
    with pytest.raises(Race, match="another lane of the same program wrote"):
        w.note(*data, STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(1, 0))


def test_an_atomic_store_over_another_lanes_store_needs_a_barrier_or_the_same_value():
    at = _at(0, 4)
    w = Writers()
    w.note(*at, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0, 1))
    w.note(*at, STARTS, ENDS, "atomic_store", 0, lambda: np.ones(2, bool), itemsize=4, lanes=_lanes(1, 0))  # same
    with pytest.raises(Race, match="stores over memory that another lane"):
        w.note(*at, STARTS, ENDS, "atomic_store", 0, lambda: np.zeros(2, bool), itemsize=4, lanes=_lanes(0, 1))
    w.at_barrier(0)
    w.note(*at, STARTS, ENDS, "atomic_store", 0, lambda: np.zeros(2, bool), itemsize=4, lanes=_lanes(1, 0))


def test_what_every_thread_stored_reads_back_without_a_barrier():
    """A store of one value by every thread to one address (`ALL_LANES`): each thread reads its own store back;
    a store of another value over it from one lane is still a race."""
    from leap.sandbox.worker.interpreter_races import ALL_LANES, EVERY_LANE

    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    at, span = np.array([8], dtype=np.uint64), np.zeros(1, dtype=np.int64)
    w = Writers()
    w.note(at, span, starts, ends, "store", 0, itemsize=4, lanes=np.array([ALL_LANES], dtype=np.int32))
    w.note(at, span, starts, ends, "load", 0, itemsize=4, lanes=np.array([EVERY_LANE], dtype=np.int32))
    w.note(at, span, starts, ends, "load", 0, itemsize=4, lanes=np.array([5], dtype=np.int32))
    with pytest.raises(Race, match="stores over"):
        w.note(at, span, starts, ends, "store", 0, lambda: np.array([False]), itemsize=4,
               lanes=np.array([0], dtype=np.int32))
    every = np.array([ALL_LANES], dtype=np.int32)
    w.note(at, span, starts, ends, "store", 0, lambda: np.array([True]), itemsize=4, lanes=every)  # same value
    with pytest.raises(Race, match="stores over"):  # a lagging warp's earlier store may land after it
        w.note(at, span, starts, ends, "store", 0, lambda: np.array([False]), itemsize=4, lanes=every)
