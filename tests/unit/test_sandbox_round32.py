"""Red-team round 32: a scalar load is every thread's, two stores by different lanes, a plain store that atomics of
other programs update (`leap.sandbox.worker.interpreter_races.Writers`)."""

import numpy as np
import pytest

from leap.sandbox.worker.interpreter_races import EVERY_LANE, Race, Writers

STARTS, ENDS = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)


def _at(*offsets):
    return np.array(offsets, dtype=np.uint64), np.zeros(len(offsets), dtype=np.int64)


def _lanes(*lanes):
    return np.array(lanes, dtype=np.int32)


def test_a_scalar_load_of_what_the_program_stored_needs_a_barrier():
    """On a GPU every thread runs a scalar load: reading back a scalar store (lane 0's) without a barrier races;
    with `tl.debug_barrier` between, it does not."""
    at, span = _at(0)
    w = Writers()
    w.note(at, span, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0))
    with pytest.raises(Race, match="another lane of the same program wrote"):
        w.note(at, span, STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(EVERY_LANE))
    w.at_barrier(0)
    w.note(at, span, STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(EVERY_LANE))
    w.note(*_at(8), STARTS, ENDS, "load", 0, itemsize=4, lanes=_lanes(EVERY_LANE))  # never written: no race


def test_a_store_over_another_lanes_store_needs_a_barrier_or_the_same_value():
    at, span = _at(0, 4, 8, 12)
    w = Writers()
    w.note(at, span, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0, 1, 2, 3))
    w.note(at, span, STARTS, ENDS, "store", 0, lambda: np.ones(4, bool), itemsize=4, lanes=_lanes(0, 1, 2, 3))
    w.note(at, span, STARTS, ENDS, "store", 0, lambda: np.zeros(4, bool), itemsize=4, lanes=_lanes(0, 1, 2, 3))
    flipped = _lanes(3, 2, 1, 0)
    with pytest.raises(Race, match="stores over memory that another lane"):
        w.note(at, span, STARTS, ENDS, "store", 0, lambda: np.zeros(4, bool), itemsize=4, lanes=flipped)
    w.note(at, span, STARTS, ENDS, "store", 0, lambda: np.ones(4, bool), itemsize=4, lanes=flipped)  # same values
    w.at_barrier(0)
    w.note(at, span, STARTS, ENDS, "store", 0, lambda: np.zeros(4, bool), itemsize=4, lanes=flipped)


def test_an_atomic_must_be_ordered_after_another_programs_plain_store():
    """Program 0 takes ticket 0 (an atomic on the counter at 32), zeroes the accumulator at 0 with a plain store and
    adds into it; program 1 then adds. Its own atomic acquiring program 0's release does not order the plain store
    before it: a race. A release after the store, acquired by program 2 at another address first, does."""
    acc, ctr, flag = _at(0), _at(32), _at(48)
    w = Writers()
    w.note(*ctr, STARTS, ENDS, "atomic", 0, itemsize=4, lanes=_lanes(0))
    w.note(*acc, STARTS, ENDS, "store", 0, itemsize=4, lanes=_lanes(0))
    w.note(*acc, STARTS, ENDS, "atomic", 0, itemsize=4, lanes=_lanes(0))
    w.note(*flag, STARTS, ENDS, "atomic", 0, itemsize=4, lanes=_lanes(0))  # releases the zeroing
    w.note(*flag, STARTS, ENDS, "atomic", 2, itemsize=4, lanes=_lanes(0))  # program 2 acquires it first
    w.note(*acc, STARTS, ENDS, "atomic", 2, itemsize=4, lanes=_lanes(0))
    w.note(*ctr, STARTS, ENDS, "atomic", 1, itemsize=4, lanes=_lanes(0))  # acquired only the ticket
    with pytest.raises(Race, match="stored with a plain store, with nothing ordering"):
        w.note(*acc, STARTS, ENDS, "atomic", 1, itemsize=4, lanes=_lanes(0))


def test_a_programs_own_plain_store_then_its_atomics_is_no_race():
    acc = _at(0)
    w = Writers()
    w.note(*acc, STARTS, ENDS, "store", 3, itemsize=4, lanes=_lanes(0))
    w.note(*acc, STARTS, ENDS, "atomic", 3, itemsize=4, lanes=_lanes(0))
    w.note(*acc, STARTS, ENDS, "atomic", 3, itemsize=4, lanes=_lanes(0))
    assert (w.shadow[0][:4] == -3 - 3).all() and (w.plain[0][0][:4] == 3).all()  # the store kept under the atomics
