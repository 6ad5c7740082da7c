"""Red-team round 29: what one serial program order hides (byte-granular race records, the reversed re-run)."""

import numpy as np
import pytest

from leap.sandbox.worker.interpreter_races import Race, Writers, grid_index, program_order


def test_a_wide_store_read_back_in_narrow_pieces_is_a_race():
    """Program 0 stores an int64; program 1 reads its upper int32 (4 bytes in): the record covers every byte."""
    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    one = np.zeros(1, dtype=np.int64)
    w = Writers()
    w.note(np.array([8], dtype=np.uint64), one, starts, ends, "store", 0, itemsize=8)
    w.note(np.array([16], dtype=np.uint64), one, starts, ends, "load", 1, itemsize=4)  # next element: no race
    with pytest.raises(Race, match="program 1 of a launch reads"):
        w.note(np.array([12], dtype=np.uint64), one, starts, ends, "load", 1, itemsize=4)


def test_same_value_stores_are_judged_per_byte_of_each_lane():
    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    at, span = np.array([0, 8], dtype=np.uint64), np.zeros(2, dtype=np.int64)
    w = Writers()
    w.note(at, span, starts, ends, "store", 0, itemsize=8)
    w.note(at, span, starts, ends, "store", 1, lambda: np.array([True, True]), itemsize=8)
    with pytest.raises(Race, match="writes over"):
        w.note(at, span, starts, ends, "store", 2, lambda: np.array([True, False]), itemsize=8)


def test_reversed_order_mirrors_every_grid_axis():
    dims = (3, 2, 1)
    try:
        assert grid_index(0, 0, 0, dims) == (0, 0, 0)
        program_order("reverse")
        assert grid_index(0, 0, 0, dims) == (2, 1, 0)
        assert grid_index(2, 1, 0, dims) == (0, 0, 0)
        seen = {grid_index(x, y, 0, dims) for x in range(3) for y in range(2)}
        assert seen == {(x, y, 0) for x in range(3) for y in range(2)}  # every program still runs once
    finally:
        program_order(None)
    assert grid_index(1, 0, 0, dims) == (1, 0, 0)


def test_the_interpreter_runs_programs_in_the_order_asked(monkeypatch):
    """Through the patched interpreter: a kernel recording which program ran at each step."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    import triton.language as tl

    from leap.sandbox.worker import interpreter_masks

    assert interpreter_masks.install()

    @triton.jit
    def ticket(order_ptr, count_ptr):
        step = tl.atomic_add(count_ptr, 1)
        tl.store(order_ptr + step, tl.program_id(0))

    def run() -> list[int]:
        order, count = torch.zeros(4, dtype=torch.int32), torch.zeros(1, dtype=torch.int32)
        ticket[(4,)](order, count)
        return order.tolist()

    assert run() == [0, 1, 2, 3]
    program_order("reverse")
    try:
        assert run() == [3, 2, 1, 0]
    finally:
        program_order(None)


def test_float_atomic_exchange_runs_under_the_interpreter(monkeypatch):
    """fp32/fp64 ``tl.atomic_xchg`` (supported on a GPU) moves the float's bits and returns the old value."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    import triton.language as tl

    from leap.sandbox.worker import interpreter_masks

    assert interpreter_masks.install()

    @triton.jit
    def swap(p, v, o):
        i = tl.arange(0, 4)
        tl.store(o + i, tl.atomic_xchg(p + i, tl.load(v + i)))

    for dt in (torch.float32, torch.float64):
        p, v, o = torch.arange(4, dtype=dt) + 0.5, torch.full((4,), -2.25, dtype=dt), torch.empty(4, dtype=dt)
        swap[(1,)](p, v, o)
        assert p.tolist() == [-2.25] * 4 and o.tolist() == [0.5, 1.5, 2.5, 3.5]


def test_a_shuffled_order_runs_every_program_once_and_takes_triton_scalars():
    class Scalar:  # what a grid function computing on launch arguments gives under the interpreter
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    dims = (Scalar(4), 3, Scalar(2))
    try:
        program_order(12345)
        seen = [grid_index(x, y, z, dims) for x in range(4) for y in range(3) for z in range(2)]
        assert sorted(seen) == [(x, y, z) for x in range(4) for y in range(3) for z in range(2)]
        assert seen != sorted(seen)  # not the grid's order
        assert seen == [grid_index(x, y, z, dims) for x in range(4) for y in range(3) for z in range(2)]  # same seed
        program_order("reverse")
        assert grid_index(0, 0, 0, dims) == (3, 2, 1)
    finally:
        program_order(None)


def test_lanes_of_one_program_meet_only_across_a_barrier():
    """A program storing a block and loading it back shifted by one lane, with no tl.debug_barrier: a race on a GPU
    (other threads). The same lane or a barrier between: no race."""
    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    at = np.array([0, 4, 8, 12], dtype=np.uint64)
    span, lanes = np.zeros(4, dtype=np.int64), np.arange(4, dtype=np.int32)
    w = Writers()
    w.note(at, span, starts, ends, "store", 0, itemsize=4, lanes=lanes)
    w.note(at, span, starts, ends, "load", 0, itemsize=4, lanes=lanes)  # each lane its own element
    w.note(at[:1], span[:1], starts, ends, "load", 0, itemsize=4, lanes=np.array([0], dtype=np.int32))  # lane 0 only
    with pytest.raises(Race):  # a scalar (one thread, lane 0) reading what lane 2 stored
        w.note(at[2:3], span[:1], starts, ends, "load", 0, itemsize=4, lanes=np.array([0], dtype=np.int32))
    with pytest.raises(Race, match="another lane of the same program"):
        w.note(at[1:], span[1:], starts, ends, "load", 0, itemsize=4, lanes=lanes[:3])
    w.at_barrier(0)
    w.note(at[1:], span[1:], starts, ends, "load", 0, itemsize=4, lanes=lanes[:3])


def test_float_to_int_converts_as_a_gpu_does(monkeypatch):
    """Toward zero, saturating at the type's range, NaN to 0 (numpy's cast gave INT_MIN: red-team round 31)."""
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    torch = pytest.importorskip("torch")
    triton = pytest.importorskip("triton")
    import triton.language as tl

    from leap.sandbox.worker import interpreter_bf16

    assert interpreter_bf16.install()

    @triton.jit
    def cvt(x, o, u):
        i = tl.arange(0, 8)
        v = tl.load(x + i)
        tl.store(o + i, v.to(tl.int32))
        tl.store(u + i, v.to(tl.uint8))

    x = torch.tensor([1.7, -2.9, float("nan"), 3e9, -3e9, 300.0, -5.0, 0.5])
    o, u = torch.empty(8, dtype=torch.int32), torch.empty(8, dtype=torch.uint8)
    cvt[(1,)](x, o, u)
    assert o.tolist() == [1, -2, 0, 2**31 - 1, -(2**31), 300, -5, 0]
    assert u.tolist() == [1, 0, 0, 255, 0, 255, 0, 0]


def test_lanes_on_one_address_follow_the_program_order():
    from leap.sandbox.worker.interpreter_races import lane_permutation

    try:
        assert lane_permutation(4) is None  # the grid's order: lanes in index order
        program_order("reverse")
        assert lane_permutation(4).tolist() == [3, 2, 1, 0]
        program_order(99)
        p = lane_permutation(16)
        assert sorted(p.tolist()) == list(range(16)) and p.tolist() != list(range(16))
    finally:
        program_order(None)


def test_one_store_writing_two_values_to_one_address_is_a_race():
    from leap.sandbox.worker.interpreter_masks import _one_value_per_address

    ptrs = np.array([8, 8, 16, 24], dtype=np.uint64)
    _one_value_per_address(ptrs, np.array([1.0, 1.0, 2.0, 3.0]), None)  # the same value twice: defined
    _one_value_per_address(ptrs, np.array([1.0, 5.0, 2.0, 3.0]), np.array([True, False, True, True]))  # masked off
    _one_value_per_address(ptrs[:1], np.array(4.0), None)  # a scalar
    with pytest.raises(Race, match="different values to the same address"):
        _one_value_per_address(ptrs, np.array([1.0, 5.0, 2.0, 3.0]), None)
