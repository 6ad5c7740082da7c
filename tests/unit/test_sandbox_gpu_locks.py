"""The per-GPU readers-writer lock: shared holders overlap, exclusive is alone and not starved."""

from __future__ import annotations

import threading
import time

from leap.sandbox.gpu_locks import GpuLocks, RWLock


def test_shared_holders_overlap_and_exclusive_waits():
    lk = RWLock()
    lk.acquire(False)
    lk.acquire(False)  # two shared holders at once
    got = threading.Event()

    def writer():
        lk.acquire(True)
        got.set()
        lk.release(True)

    t = threading.Thread(target=writer)
    t.start()
    time.sleep(0.1)
    assert not got.is_set()
    lk.release(False)
    time.sleep(0.05)
    assert not got.is_set()
    lk.release(False)
    t.join(2)
    assert got.is_set()


def test_waiting_writer_blocks_new_readers():
    lk = RWLock()
    lk.acquire(False)
    order = []
    w = threading.Thread(target=lambda: (lk.acquire(True), order.append("w"), lk.release(True)))
    w.start()
    time.sleep(0.05)
    r = threading.Thread(target=lambda: (lk.acquire(False), order.append("r"), lk.release(False)))
    r.start()
    time.sleep(0.05)
    assert order == []
    lk.release(False)
    w.join(2)
    r.join(2)
    assert order == ["w", "r"]


def test_assignment_balances_gpus():
    g = GpuLocks([0, 1])
    a, b = g.assign(), g.assign()
    assert {a, b} == {0, 1}
    g.done(a)
    assert g.assign() == a
    assert GpuLocks([]).assign() is None
    with GpuLocks([]).shared(None):
        pass
