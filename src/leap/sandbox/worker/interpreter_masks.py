"""Boolean masks for Triton's CPU interpreter (CPU checks only).

A mask built from a block comparison and a scalar one (``(offs < W) & (ih >= 0)``, ``ih`` from
``tl.program_id``: every convolution and pooling kernel's bounds test) is ``int1`` on a GPU, but Triton's
interpreter (3.9) types the scalar comparison's data as int32, and its native ``load``/``store`` then refuse
the mask ("mask has unsupported dtype"): a correct kernel got the candidate's ``runtime_error`` (a red-team
pass, 2026-12-05). `install` hands the native calls a boolean mask (non-zero is true, as the GPU's i1 is).
Installed by the harness before candidate code runs, in interpreter mode only.

Bounds: under the interpreter a pointer is a host address, so a kernel could read and write any of the child's
memory — Python objects found through ``hash()`` of an instance (its address) included, which a host-side
comprehension then computes on (red-team round 25). Every load, store and atomic of a launch must fall, on its
unmasked lanes, inside the storage of one of the launch's tensor arguments; anything else raises `OutOfBounds`
(on a GPU such an access is an illegal address).
"""

from __future__ import annotations

import inspect

import numpy as np

from leap.sandbox.worker.interpreter_bf16 import patch_once
from leap.sandbox.worker.interpreter_races import (
    ALL_LANES,
    EVERY_LANE,
    Race,
    Writers,
    grid_index,
    lane_permutation,
)

_RANGES: list = [None]  # the running launch's `_Launch` (its tensor arguments)
_WARPS: list = [4]  # the running launch's num_warps (read when its `_Launch` is made)


class OutOfBounds(RuntimeError):
    """A kernel's memory access outside every tensor argument of its launch."""


def _tensors(args) -> list:
    """The tensors in ``args`` (tuples, lists and tensor descriptors walked)."""
    out = []

    def walk(a):
        if isinstance(a, tuple | list):
            for b in a:
                walk(b)
        elif hasattr(a, "untyped_storage"):
            out.append(a)
        elif hasattr(a, "base") and hasattr(a.base, "untyped_storage"):  # a TensorDescriptor
            walk(a.base)

    walk(args)
    return out


def _spans(tensors) -> tuple:
    return tuple(sorted({(t.untyped_storage().data_ptr(), t.untyped_storage().nbytes()) for t in tensors}))


def storage_ranges(args) -> tuple[np.ndarray, np.ndarray]:
    """(starts, ends) in bytes of the storages of the tensors in ``args``, as they are now."""
    spans = _spans(_tensors(args))
    return (np.array([s for s, _ in spans], dtype=np.uint64), np.array([s + n for s, n in spans], dtype=np.uint64))


class _Launch:
    """A launch's tensor arguments; their ranges are re-read when a storage moved or shrank since (a grid
    function or pre-run hook that ``resize_``-s an argument frees its old memory: red-team round 26)."""

    def __init__(self, args, program=None, threads: int = 128):
        self.tensors = _tensors(args)
        self.threads = threads  # 32 x the launch's num_warps
        self.key: tuple | None = None
        self.cached = None
        self.program = program  # () -> the running program's index in the grid
        self.writers: Writers | None = None  # set with the ranges (`ranges` runs before any note)

    def ranges(self):
        key = _spans(self.tensors)
        if key != self.key:
            self.key, self.cached, self.writers = key, storage_ranges(self.tensors), Writers()
        return self.cached


def check_bounds(ptrs, mask, itemsize: int, ranges=None, kind: str = "", unchanged=None, sync=(True, True),
                 fence: bool = True) -> None:
    """Raise `OutOfBounds` when an address of ``ptrs`` (where ``mask`` holds) is outside ``ranges``
    (default: the running launch's); no check outside a launch. With ``kind`` (see `Writers.note`) the access is
    also noted for the launch's race check (`interpreter_races`); ``sync``: an atomic's (acquire, release);
    ``fence``: whether a scalar atomic ends as a barrier (not when relaxed)."""
    launch = None
    if ranges is None:
        launch = _RANGES[0]
        if launch is None:
            return
        ranges = launch.ranges()
    addr = np.asarray(ptrs, dtype=np.uint64).ravel()
    lanes = None
    if mask is not None:
        on = _on(mask, ptrs)
        addr, lanes = addr[on], np.flatnonzero(on).astype(np.int32)
    if addr.size == 0:
        return
    starts, ends = ranges
    at = np.searchsorted(starts, addr, side="right").astype(np.int64) - 1
    ok = (at >= 0) & (addr + np.uint64(itemsize) <= ends[np.maximum(at, 0)]) if starts.size else np.zeros(addr.shape, bool)
    off = addr % np.uint64(itemsize) if itemsize in (2, 4, 8, 16) else None
    if off is not None and off.any():
        bad = int(addr[off != 0][0])
        raise OutOfBounds(f"a kernel accessed {itemsize}-byte elements at {bad:#x}, an address not a multiple of "
                          f"{itemsize} (on a GPU: a misaligned address error)")
    if not ok.all():
        bad = int(addr[~ok][0])
        if _in_live_tensor(bad, itemsize):  # Triton's grouped-GEMM pattern: right on a GPU, unjudgeable here
            raise OutOfBounds("following a pointer read from tensor data (an address inside a live tensor that is "
                              "not an argument of this launch) is not available in Triton's CPU interpreter checks")
        raise OutOfBounds(f"a kernel accessed address {bad:#x}, outside every tensor argument of its launch (on a GPU: "
                          "an illegal memory access); mask the out-of-range lanes")
    if kind and launch is not None and launch.program is not None:
        n, loads = np.size(ptrs), kind in ("load", "volatile_load")
        if n == 1:  # a scalar store or atomic: one thread's (lane 0); a scalar load: every thread's
            lanes = np.full(addr.size, EVERY_LANE if loads else 0, dtype=np.int32)
        elif kind.endswith("store") and addr.size == n >= launch.threads and (addr == addr[0]).all():
            lanes = np.full(addr.size, ALL_LANES, dtype=np.int32)  # every thread stores to one address
        elif lanes is None:
            lanes = np.arange(addr.size, dtype=np.int32)
        launch.writers.note(addr, at, starts, ends, kind, launch.program(), unchanged, itemsize, *sync, lanes=lanes,
                            fence=fence)


def _one_value_per_address(ptrs, value, mask) -> None:
    """Raise `Race` when lanes of one store write different values to one address: on a GPU the lanes are threads
    and which one lands is not defined (the interpreter let the last lane win: red-team round 31)."""
    addr = np.asarray(ptrs).ravel()
    if addr.size < 2:
        return
    vals = np.broadcast_to(np.asarray(value), np.shape(ptrs)).ravel()
    if mask is not None:
        on = _on(mask, ptrs)
        addr, vals = addr[on], vals[on]
    if addr.size < 2 or np.unique(addr).size == addr.size:
        return
    order = np.argsort(addr, kind="stable")
    a, v = addr[order], vals[order]
    same = a[1:] == a[:-1]
    differ = (v[1:] != v[:-1]) & ~(np.isnan(v[1:]) & np.isnan(v[:-1])) if v.dtype.kind == "f" else v[1:] != v[:-1]
    if (same & differ).any():
        raise Race("lanes of one store write different values to the same address: on a GPU they are threads and "
                   "which value lands is not defined (a race within a program)")


def _on(mask, ptrs) -> np.ndarray:
    """``mask`` as one flat boolean per lane of ``ptrs`` (broadcast to its shape; non-zero is true)."""
    return np.broadcast_to(np.asarray(mask).astype(bool), np.shape(ptrs)).ravel()


def _in_live_tensor(addr: int, size: int) -> bool:
    """Whether ``addr`` lies in the storage of a live CPU tensor (found only after an access failed the bounds)."""
    import gc

    import torch

    for obj in gc.get_objects():
        if isinstance(obj, torch.Tensor) and obj.device.type == "cpu":
            try:
                st = obj.untyped_storage()
                start, n = st.data_ptr(), st.nbytes()
            except Exception:  # noqa: BLE001 - a tensor without storage (meta, sparse)
                continue
            if start <= addr and addr + size <= start + n:
                return True
    return False


@patch_once
def install() -> None:
    """Patch the interpreter's masked memory ops (once)."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    builder, handle = interp.InterpreterBuilder, interp.TensorHandle

    def boolean(mask):
        data = getattr(mask, "data", None)
        if isinstance(data, np.ndarray) and data.dtype != np.bool_ and data.dtype.kind in "iu":
            return handle(data != 0, tl.int1)
        return mask

    load, store, rmw = builder.create_masked_load, builder.create_masked_store, builder.create_atomic_rmw
    cas, executor, set_idx = builder.create_atomic_cas, interp.GridExecutor, builder.set_grid_idx
    init_args, call = executor._init_args_hst, executor.__call__

    def size(ptrs) -> int:
        try:
            return np.dtype(interp._get_np_dtype(ptrs.get_element_ty())).itemsize
        except Exception:  # noqa: BLE001 - an odd element type: check the first byte
            return 1

    def checked(ptrs, mask, kind, unchanged=None, sync=(True, True), fence=True):
        mask = boolean(mask)
        check_bounds(ptrs.data, None if mask is None else mask.data, size(ptrs), kind=kind, unchanged=unchanged,
                     sync=sync, fence=fence)
        return mask

    sem_ir, scope_ir = interp._ir.MEM_SEMANTIC, interp._ir.MEM_SYNC_SCOPE

    def fenced(sem) -> bool:  # a relaxed scalar atomic with an unused result lowers to no bar.sync (round 33)
        return sem != sem_ir.RELAXED

    def sync(sem, scope) -> tuple[bool, bool]:  # (acquires, releases): a CTA-scope atomic orders no two programs
        if scope == scope_ir.CTA:
            return False, False
        return sem in (sem_ir.ACQUIRE_RELEASE, sem_ir.ACQUIRE), sem in (sem_ir.ACQUIRE_RELEASE, sem_ir.RELEASE)

    # where the builder's load takes ``is_volatile`` among the arguments after (self, ptrs, mask), by name: Triton
    # versions differ in what comes before it (3.9: other, cache_policy, is_volatile)
    load_args = list(inspect.signature(load).parameters)[3:]
    at_volatile = load_args.index("is_volatile") if "is_volatile" in load_args else None

    def create_masked_load(self, ptrs, mask, *args, **kwargs):
        volatile = kwargs.get("is_volatile", args[at_volatile] if at_volatile is not None and len(args) > at_volatile
                              else False)
        kind = "volatile_load" if volatile else "load"  # ld.volatile: strong, meets atomics (round 33)
        return load(self, ptrs, checked(ptrs, mask, kind, sync=(False, False), fence=False), *args, **kwargs)

    def unchanged_by(self, ptrs, value, mask):
        def unchanged():  # per stored lane, in the order `check_bounds` keeps them: the value already there
            on = boolean(mask)
            held = load(self, ptrs, on, None, None, False).data
            same = np.broadcast_to(held == np.asarray(value.data), np.shape(ptrs.data)).ravel()
            return same if on is None else same[_on(on.data, ptrs.data)]
        return unchanged

    def create_masked_store(self, ptrs, value, mask, *args, **kwargs):
        on = checked(ptrs, mask, "store", unchanged_by(self, ptrs, value, mask))
        _one_value_per_address(ptrs.data, value.data, None if on is None else on.data)
        return store(self, ptrs, value, on, *args, **kwargs)

    xchg = interp._ir.ATOMIC_OP.XCHG
    as_int = {np.dtype(np.float32): (np.int32, tl.int32), np.dtype(np.float64): (np.int64, tl.int64)}

    def native_rmw(self, op, ptr, val, mask, sem, scope):
        data = getattr(val, "data", None)
        if op == xchg and isinstance(data, np.ndarray) and data.dtype in as_int:
            # a float exchange moves bits; the interpreter's native op takes only integers ("Unsupported data
            # type": a correct kernel got the candidate's runtime_error, round 28), so exchange the bits as ints
            ints, ity = as_int[data.dtype]
            old = rmw(self, op, ptr, handle(data.view(ints), ity), mask, sem, scope)
            return handle(np.asarray(old.data).view(data.dtype), val.dtype)
        return rmw(self, op, ptr, val, mask, sem, scope)

    def in_lane_order(atomic, ptr, *operands):
        """``atomic(ptr, *operands)`` with the lanes sharing an address served in the permuted order
        (`lane_permutation`; rmw since round 31, cas since round 33); the old values come back in lane order."""
        addr = np.asarray(ptr.data)
        perm = lane_permutation(addr.size) if np.unique(addr).size < addr.size else None
        if perm is None:
            return atomic(ptr, *operands)

        def lanes(h):
            return None if h is None else handle(np.broadcast_to(np.asarray(h.data), addr.shape).reshape(-1)[perm],
                                                 h.dtype.scalar)

        old = atomic(lanes(ptr), *map(lanes, operands))
        back = np.empty_like(np.asarray(old.data))
        back[perm] = np.asarray(old.data)
        return handle(back.reshape(addr.shape), old.dtype.scalar)

    def create_atomic_rmw(self, op, ptr, val, mask, sem, scope):
        mask = checked(ptr, mask, "atomic", sync=sync(sem, scope), fence=fenced(sem))
        return in_lane_order(lambda p, v, m: native_rmw(self, op, p, v, m, sem, scope), ptr, val, mask)

    def create_atomic_cas(self, ptr, cmp, val, sem, scope):
        check_bounds(ptr.data, None, size(ptr), kind="atomic", sync=sync(sem, scope), fence=fenced(sem))
        return in_lane_order(lambda p, c, v: cas(self, p, c, v, sem, scope), ptr, cmp, val)

    def create_atomic_load(self, ptr, mask, sem, scope):  # natively a plain load: noted as the atomic it is
        return load(self, ptr, checked(ptr, mask, "atomic_load", sync=sync(sem, scope), fence=fenced(sem)), None,
                    None, True)

    def create_atomic_store(self, ptr, val, mask, sem, scope):
        # like a plain store: a store over another lane's store, or two lanes of it with different values to one
        # address, is a Race (round 33: the interpreter let the last lane win); a scalar one is no barrier unless
        # it releases (sm_90: bar.sync before the release fence)
        on = checked(ptr, mask, "atomic_store", unchanged_by(self, ptr, val, mask), sync(sem, scope),
                     fence=sem in (sem_ir.RELEASE, sem_ir.ACQUIRE_RELEASE))
        _one_value_per_address(ptr.data, val.data, None if on is None else on.data)
        return store(self, ptr, val, on, None)

    def program() -> int:
        b = interp.interpreter_builder
        (x, y, z), (gx, gy, _) = b.grid_idx, b.grid_dim
        return int(x + gx * (y + gy * z))

    def set_grid_idx(self, x, y, z):  # the order `interpreter_races.program_order` set
        return set_idx(self, *grid_index(x, y, z, self.grid_dim))

    def _init_args_hst(self, args_dev, kwargs):
        args_hst, kwargs_hst = init_args(self, args_dev, kwargs)
        _RANGES[0] = _Launch([list(args_hst), list(kwargs_hst.values())], program, 32 * _WARPS[0])
        return args_hst, kwargs_hst

    def __call__(self, *args, **kwargs):
        outer, warps = _RANGES[0], _WARPS[0]
        w = kwargs.get("num_warps")
        _WARPS[0] = int(w) if isinstance(w, int) and w > 0 else 4  # Triton's default
        try:
            return call(self, *args, **kwargs)
        finally:
            _RANGES[0], _WARPS[0] = outer, warps

    builder.create_masked_load, builder.create_masked_store = create_masked_load, create_masked_store
    builder.create_atomic_rmw, builder.create_atomic_cas = create_atomic_rmw, create_atomic_cas
    builder.create_atomic_load, builder.create_atomic_store = create_atomic_load, create_atomic_store

    def create_reshape(self, arg, shape, allow_reorder):  # ``can_reorder``: an order Triton leaves open
        data = np.asarray(arg.data)
        perm = lane_permutation(data.size) if allow_reorder else None
        flat = data.reshape(-1) if perm is None else data.reshape(-1)[perm]
        return handle(flat.reshape(shape), arg.dtype.scalar)

    builder.create_reshape = create_reshape
    barrier = builder.create_barrier

    def create_barrier(self):  # a no-op for the interpreter; for the race record, the program's lanes meet here
        launch = _RANGES[0]
        if launch is not None and launch.writers is not None and launch.program is not None:
            launch.writers.at_barrier(launch.program())
        return barrier(self)

    builder.create_barrier = create_barrier
    executor._init_args_hst, executor.__call__ = _init_args_hst, __call__
    builder.set_grid_idx = set_grid_idx
