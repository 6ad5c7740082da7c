"""The per-GPU readers-writer lock: shared holders overlap, exclusive is alone and not starved."""

from __future__ import annotations

import threading
import time

from leap.sandbox.pool.gpu_locks import GpuLocks, RWLock


def _until_waiting(lk: RWLock, n: int) -> None:
    """Block until ``n`` threads wait on the lock's condition (state, not sleeps; a bound against hangs)."""
    deadline = time.monotonic() + 30
    while len(lk._cond._waiters) < n:
        assert time.monotonic() < deadline, "threads never reached the lock"
        time.sleep(0.001)


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
    _until_waiting(lk, 1)
    assert not got.is_set() and lk._writers_waiting == 1
    lk.release(False)
    _until_waiting(lk, 1)  # woken by the release, waiting again: one shared holder is left
    assert not got.is_set()
    lk.release(False)
    t.join(30)
    assert got.is_set() and not t.is_alive()


def test_waiting_writer_blocks_new_readers():
    lk = RWLock()
    lk.acquire(False)
    order = []
    w = threading.Thread(target=lambda: (lk.acquire(True), order.append("w"), lk.release(True)))
    w.start()
    _until_waiting(lk, 1)
    r = threading.Thread(target=lambda: (lk.acquire(False), order.append("r"), lk.release(False)))
    r.start()
    _until_waiting(lk, 2)  # the new reader waits too, although only a reader holds the lock
    assert order == []
    lk.release(False)
    w.join(30)
    r.join(30)
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
