"""``tl.reduce`` / ``tl.associative_scan`` with a combine function of the candidate's own, for Triton's CPU
interpreter (CPU checks only).

Triton's interpreter (3.9) runs such a combine function once per element, on scalars: an argmax with a
tie-break or a Welford norm over a few thousand elements per row took seconds per launch, tripled under the
harness's line trace, and a KernelBench-sized input could run past the CPU time limit, a timeout blamed on a
correct kernel. `install` runs the combine function on whole blocks instead, as a GPU does, in log2(n)
rounds: a reduction combines neighbours pairwise (the order of the operands is kept, so an associative
combine that is not commutative gives the same result), a scan is an inclusive Hillis-Steele scan. A
combine function that turns an operand into a Python value (a Python ``if`` on its operands, which the
interpreter would answer True for any block) falls back to the interpreter's element-by-element loop. Installed by the harness before candidate code runs, in interpreter mode only.
"""

from __future__ import annotations

import numpy as np

from leap.sandbox.worker.interpreter_bf16 import patch_once


class _NotBlockwise(Exception):
    """The combine function asked an operand for a Python value: it runs on scalars only."""


# what a combine function written for scalars raises on blocks
_BLOCK_REFUSALS = (_NotBlockwise, ValueError, TypeError, IndexError)
_ON_BLOCKS: list[bool] = []  # non-empty while a combine function runs on blocks


@patch_once
def install() -> None:
    """Patch the interpreter's generic reduce and scan (once)."""
    from triton.runtime import interpreter as interp

    reduce_ops, scan_ops = getattr(interp, "ReduceOps", None), getattr(interp, "ScanOps", None)
    if not (hasattr(reduce_ops, "generic_reduce") and hasattr(scan_ops, "generic_scan")):  # pragma: no cover
        return
    slow_reduce, slow_scan = reduce_ops.generic_reduce, scan_ops.generic_scan
    patch_tensor = interp._patch_lang_tensor

    def patched_tensor(tensor, scope):  # tensor -> Python value on blocks: not a blockwise combine
        patch_tensor(tensor, scope)
        for name in ("__index__", "__bool__"):
            scope.set_attr(tensor, name, _scalar_only(getattr(tensor, name)))

    interp._patch_lang_tensor = patched_tensor

    def generic_reduce(self, input):
        try:
            return _tree_reduce(self, input)
        except _BLOCK_REFUSALS:
            return slow_reduce(self, input)

    def generic_scan(self, input):
        try:
            return _block_scan(self, input)
        except _BLOCK_REFUSALS:
            return slow_scan(self, input)

    reduce_ops.generic_reduce, scan_ops.generic_scan = generic_reduce, generic_scan


def _scalar_only(convert):
    def call(self, *args):
        if _ON_BLOCKS:
            raise _NotBlockwise
        return convert(self, *args)

    return call


def _combine(op, left: list[np.ndarray], right: list[np.ndarray], dtypes: list) -> list[np.ndarray]:
    """``op.combine_fn`` on blocks ``left`` and ``right`` (one array per operand), each result in its
    operand's numpy dtype."""
    args = [op.to_tensor(np.ascontiguousarray(a), t) for a, t in zip([*left, *right], dtypes * 2, strict=True)]
    _ON_BLOCKS.append(True)
    try:
        ret = op.combine_fn.fn(*args)
    finally:
        _ON_BLOCKS.pop()
    ret = ret if isinstance(ret, tuple) else (ret,)
    if len(ret) != len(left):
        raise ValueError(f"the combine function returned {len(ret)} values for {len(left)} operands")
    shape = left[0].shape
    out = []
    for r, a in zip(ret, left, strict=True):
        data = r.handle.data if hasattr(r, "handle") else np.asarray(r)
        out.append(np.broadcast_to(np.asarray(data), shape).astype(a.dtype))
    return out


def _tree_reduce(op, input) -> list:
    """The reduction of `ReduceOps.generic_reduce` in log2(n) block rounds."""
    original_axis = op.axis
    input, axis = op.unravel(input, op.axis)
    dtypes = [t.dtype for t in input]
    data = [np.moveaxis(t.handle.data, axis, -1) for t in input]
    shape = data[0].shape
    while data[0].shape[-1] > 1:
        n = data[0].shape[-1]
        pairs = _combine(op, [d[..., 0:n - 1:2] for d in data], [d[..., 1:n:2] for d in data], dtypes)
        data = [np.concatenate([p, d[..., n - 1:]], axis=-1) if n % 2 else p for p, d in zip(pairs, data,
                                                                                          strict=True)]
    out = []
    for d, t in zip(data, dtypes, strict=True):
        d = d[..., 0]
        if op.keep_dims:
            d = np.expand_dims(d, axis) if original_axis is not None else d.reshape((1,) * len(shape))
        elif original_axis is None:
            d = d.item()
        out.append(op.to_tensor(d, t))
    return out


def _block_scan(op, input) -> list:
    """The inclusive scan of `ScanOps.generic_scan` in log2(n) block rounds (each element combined with the
    one ``step`` before it, the earlier one first)."""
    dtypes = [t.dtype for t in input]
    data = [np.moveaxis(t.handle.data, op.axis, -1).copy() for t in input]
    n, step = data[0].shape[-1], 1
    while step < n:
        done = _combine(op, [d[..., :n - step] for d in data], [d[..., step:] for d in data], dtypes)
        data = [np.concatenate([d[..., :step], c], axis=-1) for d, c in zip(data, done, strict=True)]
        step *= 2
    return [op.to_tensor(np.ascontiguousarray(np.moveaxis(d, -1, op.axis)), t)
            for d, t in zip(data, dtypes, strict=True)]
