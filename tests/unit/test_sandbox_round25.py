"""Red-team rounds 25-26: interpreter memory bounds, the allowed library calls, addmm's added input and alpha."""

import types

import numpy as np
import pytest
import torch

from leap.sandbox.judge.op_count import library_calls
from leap.sandbox.worker.compute_guard import misuse
from leap.sandbox.worker.interpreter_masks import OutOfBounds, check_bounds, storage_ranges


def test_accesses_must_fall_inside_a_tensor_argument():
    x, y = torch.zeros(8), torch.zeros(4, dtype=torch.float64)
    ranges = storage_ranges([[x, (y, 3)], []])
    base = x.data_ptr()
    check_bounds(np.array([base, base + 28], dtype=np.uint64), None, 4, ranges)  # first and last float
    check_bounds(np.array([y.data_ptr() + 24], dtype=np.uint64), None, 8, ranges)
    with pytest.raises(OutOfBounds, match="outside every tensor argument"):
        check_bounds(np.array([base + 32], dtype=np.uint64), None, 4, ranges)  # just past the end
    with pytest.raises(OutOfBounds, match="not a multiple of 4"):
        check_bounds(np.array([base + 29], dtype=np.uint64), None, 4, ranges)  # misaligned (and straddling the end)
    with pytest.raises(OutOfBounds):
        check_bounds(np.array([id(object())], dtype=np.uint64), None, 4, ranges)  # a Python object
    # masked-off lanes may point anywhere (the usual tail of a block)
    check_bounds(np.array([base, 16], dtype=np.uint64), np.array([True, False]), 4, ranges)
    with pytest.raises(OutOfBounds):
        check_bounds(np.array([base], dtype=np.uint64), None, 4, storage_ranges([]))
    check_bounds(np.array([16], dtype=np.uint64), None, 4, None)  # outside a launch: no ranges, no check


def _module(src: str) -> types.ModuleType:
    m = types.ModuleType("task")
    exec(compile("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + src, "task.py", "exec"),
         m.__dict__)
    return m


def test_reference_library_calls_are_counted_on_meta():
    conv = _module("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)
    def forward(self, x):
        return F.avg_pool2d(F.gelu(self.conv(x)), 2)
def get_inputs():
    return [torch.randn(2, 3, 16, 16)]
def get_init_inputs():
    return []
""")
    assert library_calls(conv, [], small=False) == (("conv", 2, 3, 16, 16, -1, 8, 3, 3, 3),)
    mlp = _module("""
class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(16, 32), nn.Linear(32, 4)
    def forward(self, x):
        return self.b(torch.relu(self.a(x))) @ torch.ones(4, 4)
def get_inputs():
    return [torch.randn(8, 16)]
def get_init_inputs():
    return []
""")
    assert library_calls(mlp, [], small=False) == (("gemm", 8, 16, 32), ("gemm", 8, 32, 4), ("gemm", 8, 4, 4))
    reads = _module("""
class Model(nn.Module):
    def forward(self, x):
        return x * float(x.sum())
def get_inputs():
    return [torch.randn(8)]
def get_init_inputs():
    return []
""")
    assert library_calls(reads, [], small=False) is None  # values read on meta: unknown, no limit


def test_addmm_may_add_a_bias_not_an_activation():
    s, w = torch.randn(4, 8), torch.randn(8, 8)
    assert misuse("addmm", (torch.randn(8), s, w), {}, bias_adds_only=True) is None
    assert "full-size" in misuse("addmm", (torch.randn(4, 8), s, w), {}, bias_adds_only=True)
    assert misuse("addmm", (torch.randn(4, 8), s, w), {"beta": 0}, bias_adds_only=True) is None
    assert misuse("addmm", (torch.randn(4, 8), s, w), {}, bias_adds_only=False) is None  # "add" allowed by name
    assert "alpha" in misuse("baddbmm", (torch.randn(1), s[None], w[None]), {"alpha": 0.125})  # a scale, computed


def test_a_launch_rereads_ranges_after_an_argument_moves():
    """A grid function that ``resize_``-s an argument frees its old memory: the old span must not stay allowed."""
    from leap.sandbox.worker.interpreter_masks import _RANGES, _Launch

    pad = torch.zeros(1 << 16)
    old = pad.data_ptr()
    _RANGES[0] = _Launch([[pad]])
    try:
        check_bounds(np.array([old + 64], dtype=np.uint64), None, 4)
        pad.resize_(1 << 20)  # a new, larger storage elsewhere
        assert pad.data_ptr() != old
        with pytest.raises(OutOfBounds):
            check_bounds(np.array([old + 64], dtype=np.uint64), None, 4)
        check_bounds(np.array([pad.data_ptr() + 64], dtype=np.uint64), None, 4)
    finally:
        _RANGES[0] = None


def test_library_calls_beyond_the_reference_allow_fused_gemms_only():
    from collections import Counter

    from leap.sandbox.worker.compute_guard import beyond

    lstm = Counter({("gemm", 4, 32, 128): 1, ("gemm", 4, 64, 128): 1})  # x @ Wx, h @ Wh
    assert beyond(Counter({("gemm", 4, 96, 128): 1}), lstm) == []  # cat([x, h]) @ [Wx; Wh]
    assert beyond(Counter(lstm), lstm) == []
    qkv = Counter({("gemm", 8, 64, 64): 3})
    assert beyond(Counter({("gemm", 8, 64, 192): 1}), qkv) == []  # x @ [Wq | Wk | Wv]
    assert beyond(Counter({("gemm", 8, 64, 128): 1}), qkv) == [("gemm", 8, 64, 128)]  # two of three: not a fusion
    linear = Counter({("gemm", 4, 1024, 512): 1})
    assert beyond(Counter({("gemm", 4, 1024, 512): 1, ("gemm", 4, 512, 1): 1}), linear) == [("gemm", 4, 512, 1)]
    assert beyond(Counter({("gemm", 4, 1024, 512): 2}), linear) == [("gemm", 4, 1024, 512)]
    conv = Counter({("conv", 2, 3, 16, 16, -1, 8, 3, 3, 3): 1})
    assert beyond(Counter({("conv", 2, 8, 14, 14, -1, 8, 1, 2, 2): 1}), conv) != []


def test_programs_of_one_launch_meeting_in_memory_is_a_race():
    from leap.sandbox.worker.interpreter_races import Race, Writers

    starts, ends = np.array([1000], dtype=np.uint64), np.array([1064], dtype=np.uint64)
    span = np.zeros(2, dtype=np.int64)
    at = np.array([1000, 1004], dtype=np.uint64)
    w = Writers()
    w.note(at, span, starts, ends, "load", 0)  # nothing written yet: no shadow
    w.note(at, span, starts, ends, "store", 0)
    w.note(at, span, starts, ends, "load", 0)  # its own writes
    with pytest.raises(Race, match="program 1 of a launch reads memory that program 0"):
        w.note(at, span, starts, ends, "load", 1)
    with pytest.raises(Race, match="writes over"):
        w.note(at[:1], span[:1], starts, ends, "store", 2)
    other = np.array([1008, 1012], dtype=np.uint64)
    w.note(other, span, starts, ends, "atomic", 1)
    w.note(other, span, starts, ends, "atomic", 2)  # atomics meet atomics
    with pytest.raises(Race, match="an atomic of program 2"):
        w.note(other, span, starts, ends, "load", 3)
    with pytest.raises(Race):
        w.note(at, span, starts, ends, "atomic", 4)  # over program 0's plain store


def test_programs_storing_the_value_already_there_are_no_race():
    from leap.sandbox.worker.interpreter_races import Race, Writers

    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    at, span = np.array([0, 4], dtype=np.uint64), np.zeros(2, dtype=np.int64)
    w = Writers()
    w.note(at, span, starts, ends, "store", 0)
    w.note(at, span, starts, ends, "store", 1, lambda: np.array([True, True]))
    with pytest.raises(Race):
        w.note(at, span, starts, ends, "store", 2, lambda: np.array([True, False]))


def test_an_atomic_makes_earlier_programs_writes_visible():
    """The "last program finalises" reduction: partials stored plainly, a counter bumped with an (acq_rel) atomic;
    the program whose bump comes last may read every partial. Without the atomic it is a race."""
    from leap.sandbox.worker.interpreter_races import Race, Writers

    starts, ends = np.array([0], dtype=np.uint64), np.array([64], dtype=np.uint64)
    one = np.zeros(1, dtype=np.int64)
    partial = [np.array([4 * p], dtype=np.uint64) for p in range(3)]
    counter = np.array([60], dtype=np.uint64)
    w = Writers()
    for p in range(3):
        w.note(partial[p], one, starts, ends, "store", p)
        w.note(counter, one, starts, ends, "atomic", p)
    w.note(np.concatenate(partial), np.zeros(3, dtype=np.int64), starts, ends, "load", 2)  # acquired 0 and 1
    with pytest.raises(Race):
        w.note(partial[2], one, starts, ends, "load", 1)  # program 1 bumped before 2: it never saw 2's partial
