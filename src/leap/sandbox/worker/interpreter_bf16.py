"""bf16 arithmetic for Triton's CPU interpreter (CPU checks only).

The interpreter keeps bfloat16 values as their uint16 bit patterns (numpy has no bfloat16) and applies
numpy's ops to those patterns: ``x + y`` adds two integers, so a correct bf16 kernel that does not upcast
returns garbage or NaN and would be judged ``incorrect`` (Triton 3.9; a red-team pass found it on
``mul_broadcast_bf16``). `install` wraps the interpreter builder's arithmetic so that bf16 operands are
widened to float32, computed, and rounded back to bf16 (round to nearest even), as the GPU computes bf16
arithmetic; comparisons compare the float32 values. Reductions (``tl.sum``/``min``/``max``) and scans
(``tl.cumsum``/``cumprod``) of bf16 blocks, ``tl.dot`` of bf16 blocks and casts to and from bf16 (ints,
bools and float64 included) get the same treatment. Installed by the harness before any candidate code
runs, in interpreter mode only; the GPU compiler path is untouched.
"""

from __future__ import annotations

import numpy as np


def to_f32(bits: np.ndarray) -> np.ndarray:
    """bf16 bit patterns (uint16) -> float32 values."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def to_bf16(values: np.ndarray) -> np.ndarray:
    """float32 values -> bf16 bit patterns (uint16), round to nearest even; NaN stays NaN."""
    v = np.asarray(values, dtype=np.float32)
    u = v.view(np.uint32)
    out = ((u + (((u >> 16) & 1) + 0x7FFF)) >> 16).astype(np.uint16)
    return np.where(np.isnan(v), np.uint16(0x7FC0), out)


def patch_once(patch):
    """``install()`` for an interpreter patch: runs ``patch`` once, True when patched, False when Triton (or the
    part it patches) cannot be imported."""
    done: list[bool] = []

    def install() -> bool:
        if done:
            return True
        try:
            patch()
        except (ImportError, AttributeError):  # pragma: no cover - no triton, or one without what it patches
            return False
        done.append(True)
        return True

    install.__doc__ = patch.__doc__
    return install


@patch_once
def install() -> None:
    """Patch the interpreter's bf16 arithmetic (once)."""
    import triton.language as tl
    from triton.runtime import interpreter as interp

    builder = interp.InterpreterBuilder
    handle = interp.TensorHandle
    bf16 = tl.bfloat16

    def is_bf16(h) -> bool:
        return getattr(getattr(h, "dtype", None), "scalar", None) == bf16

    def widen(h):
        return to_f32(h.data) if is_bf16(h) else h.data

    orig_binary, orig_unary, orig_ternary = builder.binary_op, builder.unary_op, builder.ternary_op

    def binary_op(self, lhs, rhs, op):
        if not (is_bf16(lhs) or is_bf16(rhs)):
            return orig_binary(self, lhs, rhs, op)
        out = np.asarray(op(widen(lhs), widen(rhs)))
        if out.dtype == np.bool_:  # a comparison: booleans, typed as the original path types them
            return handle(out, lhs.dtype.scalar)
        return handle(to_bf16(out.astype(np.float32)), bf16)

    def unary_op(self, arg, op):
        if not is_bf16(arg):
            return orig_unary(self, arg, op)
        return handle(to_bf16(np.asarray(op(widen(arg)), dtype=np.float32)), bf16)

    def ternary_op(self, lhs, rhs, other, op):
        if not is_bf16(other) or op is np.where:  # select moves bit patterns: already right
            return orig_ternary(self, lhs, rhs, other, op)
        return handle(to_bf16(op(widen(lhs), widen(rhs), widen(other))), bf16)

    def wrap_unary(name: str, fn):
        orig = getattr(builder, name)

        def call(self, arg):
            if not is_bf16(arg):
                return orig(self, arg)
            return handle(to_bf16(fn(widen(arg))), bf16)

        setattr(builder, name, call)

    builder.binary_op, builder.unary_op, builder.ternary_op = binary_op, unary_op, ternary_op
    wrap_unary("create_rsqrt", lambda x: 1.0 / np.sqrt(x))
    orig_fma = builder.create_fma

    def create_fma(self, x, y, z):
        if not is_bf16(z):
            return orig_fma(self, x, y, z)
        return handle(to_bf16(np.multiply(widen(x), widen(y), dtype=np.float64) + widen(z)), bf16)

    builder.create_fma = create_fma
    _patch_dot_and_casts(interp, builder, bf16, is_bf16, widen, handle)
    _patch_reductions(interp, bf16, widen, handle)


def _patch_dot_and_casts(interp, builder, bf16, is_bf16, widen, handle) -> None:
    """``tl.dot`` of bf16 blocks multiplies their values (not their bit patterns); a cast to or from bf16
    goes through its values (ints, bools and float64 included: the interpreter reinterpreted them)."""
    import triton.language as tl

    orig_dot, orig_cast, orig_fp_to_fp = builder.create_dot, builder.cast_impl, builder.create_fp_to_fp
    np_dtype = interp._get_np_dtype
    tf32 = interp._ir.INPUT_PRECISION.TF32

    def create_dot(self, a, b, d, input_precision, max_num_imprecise_acc):
        if not (is_bf16(a) or is_bf16(b) or is_bf16(d)):
            if input_precision == tf32 and a.dtype.scalar == tl.float32 and b.dtype.scalar == tl.float32:
                # a GPU multiplies fp32 blocks at tf32 by default (10 mantissa bits); the interpreter did it in
                # full fp32, so a default-precision fp32 `tl.dot` passed here and missed the tolerance there
                a, b = (handle(interp._round_f32_to_tf32(t.data), t.dtype.scalar) for t in (a, b))
            return orig_dot(self, a, b, d, input_precision, max_num_imprecise_acc)
        acc = np.matmul(widen(a), widen(b), dtype=np.float32) + widen(d)
        return handle(to_bf16(acc), bf16) if is_bf16(d) else handle(acc.astype(d.data.dtype), d.dtype.scalar)

    def converted(src, dst_type, toward_zero: bool = False):
        """The bf16 side of a cast by value, or None when the interpreter's own path is right (bf16 -> fp32,
        and fp32 -> bf16 rounded toward zero when asked to). fp32 -> bf16 rounds to nearest even as on a GPU
        (the interpreter truncates: correct kernels that round several times came out `incorrect`)."""
        s, d = src.dtype.scalar, dst_type.scalar
        if s == tl.float32 and d == bf16 and not toward_zero:
            return handle(to_bf16(np.asarray(src.data, dtype=np.float32)), bf16)
        if s == bf16 and np.asarray(src.data).dtype == np.bool_:  # a comparison of bf16 values: its handle is
            vals = src.data.astype(np.float32)  # typed as its operand, its data are booleans
            return handle(to_bf16(vals), bf16) if d == bf16 else handle(vals.astype(np_dtype(dst_type)), d)
        if s == bf16 and d not in (bf16, tl.float32):
            return handle(to_f32(src.data).astype(np_dtype(dst_type)), d)
        if d == bf16 and s not in (bf16, tl.float32):
            return handle(to_bf16(np.asarray(src.data).astype(np.float32)), bf16)
        return None

    def cast_impl(self, src, dst_type):
        out = converted(src, dst_type)
        return out if out is not None else orig_cast(self, src, dst_type)

    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        out = converted(src, dst_type, toward_zero="RTZ" in str(rounding_mode))
        return out if out is not None else orig_fp_to_fp(self, src, dst_type, rounding_mode)

    builder.create_dot, builder.cast_impl, builder.create_fp_to_fp = create_dot, cast_impl, create_fp_to_fp

    def fp_to_int(self, src, dst_type):
        """Float to integer as a GPU converts (``cvt.rzi``): toward zero, saturating, NaN to 0 (numpy gave INT_MIN
        for NaN and out-of-range values: red-team round 31)."""
        wide = src if src.dtype.scalar in (tl.float32, tl.float64) else cast_impl(self, src, tl.float32)
        vals = np.asarray(wide.data, dtype=np.float64)
        kind = np.dtype(np_dtype(dst_type))
        info = np.iinfo(kind)
        hi, lo = vals >= float(info.max), vals <= float(info.min)
        out = np.where(np.isnan(vals) | hi | lo, 0.0, np.trunc(vals)).astype(kind)
        out[hi], out[lo] = info.max, info.min
        return handle(out, dst_type.scalar)

    builder.create_fp_to_si = builder.create_fp_to_ui = fp_to_int


def _patch_reductions(interp, bf16, widen, handle) -> None:
    """``tl.sum`` / ``tl.min`` / ``tl.max`` / ``tl.cumsum`` / ``tl.cumprod`` over bf16 blocks: on the float32
    values, result in bf16."""
    ops = getattr(interp, "ReduceOps", None)
    if ops is None or not hasattr(ops, "sum"):  # pragma: no cover - another interpreter layout
        return
    orig_sum, orig_min_max = ops.sum, ops.min_max

    def is_bf16_tensor(t) -> bool:
        return getattr(t, "dtype", None) == bf16

    def as_f32(t):
        import triton.language as tl

        return tl.core.tensor(handle(widen(t.handle), tl.float32), tl.float32 if not t.type.is_block()
                              else tl.block_type(tl.float32, t.type.get_block_shapes()))

    def back(ret):
        import triton.language as tl

        if isinstance(ret, tuple):
            return tuple(back(r) for r in ret)
        if getattr(ret, "dtype", None) != tl.float32:
            return ret
        shape = ret.type.get_block_shapes() if ret.type.is_block() else None
        return tl.core.tensor(handle(to_bf16(ret.handle.data), bf16),
                              tl.block_type(bf16, shape) if shape else bf16)

    def sum_(self, input):
        return back(orig_sum(self, as_f32(input))) if is_bf16_tensor(input) else orig_sum(self, input)

    def min_max(self, input, val_reduce_op, idx_reduce_op=None):
        if not is_bf16_tensor(input):
            return orig_min_max(self, input, val_reduce_op, idx_reduce_op)
        return back(orig_min_max(self, as_f32(input), val_reduce_op, idx_reduce_op))

    ops.sum, ops.min_max = sum_, min_max
    scans = getattr(interp, "ScanOps", None)
    for name in ("cumsum", "cumprod"):
        orig = getattr(scans, name, None)
        if orig is None:  # pragma: no cover - another interpreter layout
            continue

        def scan(self, input, orig=orig):
            return [back(r) for r in orig(self, as_f32(input))] if is_bf16_tensor(input) else orig(self, input)

        setattr(scans, name, scan)
