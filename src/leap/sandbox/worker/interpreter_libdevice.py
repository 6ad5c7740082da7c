"""libdevice math for Triton's CPU interpreter (CPU checks only).

``triton.language.extra.libdevice`` (and its ``cuda`` twin) are compiled to NVIDIA's libdevice on a GPU;
under the interpreter they are stubs that return None, so a correct GELU written with ``libdevice.erf``
failed as the candidate's ``runtime_error`` (a red-team pass, 2026-12-03). `install` gives the common
elementwise ones a numpy body (computed in float64, stored in the argument's dtype; bf16 bit patterns
widened as `interpreter_bf16` does), and makes every other one raise an error the judge reads as
``needs_gpu`` ("not judged here"), never the candidate's fault. Installed by the harness before candidate
code runs, in interpreter mode only.
"""

from __future__ import annotations

import math

import numpy as np

from leap.sandbox.worker.interpreter_bf16 import patch_once, to_bf16, to_f32

UNSUPPORTED = "is not available in Triton's CPU interpreter"  # the judge's needs_gpu marker
_erf, _erfc, _lgamma, _gamma = (np.vectorize(f, otypes=[np.float64]) for f in
                                (math.erf, math.erfc, math.lgamma, math.gamma))
_remainder = np.vectorize(math.remainder, otypes=[np.float64])


def _round_half_away(v):
    return np.sign(v) * np.floor(np.abs(v) + 0.5)


UNARY = {
    "abs": np.abs, "acos": np.arccos, "acosh": np.arccosh, "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atanh": np.arctanh, "cbrt": np.cbrt, "ceil": np.ceil, "cos": np.cos, "cosh": np.cosh,
    "cospi": lambda v: np.cos(np.pi * v), "erf": _erf, "erfc": _erfc, "exp": np.exp, "exp10": lambda v: 10.0 ** v,
    "exp2": np.exp2, "expm1": np.expm1, "floor": np.floor, "lgamma": _lgamma, "log": np.log, "log10": np.log10,
    "log1p": np.log1p, "log2": np.log2, "nearbyint": np.rint, "normcdf": lambda v: 0.5 * _erfc(-v / math.sqrt(2)),
    "rcbrt": lambda v: 1.0 / np.cbrt(v), "rint": np.rint, "round": _round_half_away, "rsqrt": lambda v: 1.0 / np.sqrt(v),
    "rsqrt_rn": lambda v: 1.0 / np.sqrt(v), "saturatef": lambda v: np.clip(v, 0.0, 1.0), "sin": np.sin,
    "sinh": np.sinh, "sinpi": lambda v: np.sin(np.pi * v), "sqrt": np.sqrt, "sqrt_rn": np.sqrt, "tan": np.tan,
    "tanh": np.tanh, "tgamma": _gamma, "trunc": np.trunc,
    "fast_cosf": np.cos, "fast_expf": np.exp, "fast_exp10f": lambda v: 10.0 ** v, "fast_log10f": np.log10,
    "fast_log2f": np.log2, "fast_logf": np.log, "fast_sinf": np.sin, "fast_tanf": np.tan, "fast_tanhf": np.tanh,
}
BINARY = {
    "pow": np.power, "fast_powf": np.power, "atan2": np.arctan2, "copysign": np.copysign, "fmod": np.fmod,
    "hypot": np.hypot, "fdim": lambda a, b: np.maximum(a - b, 0.0), "remainder": _remainder,
    "nextafter": np.nextafter, "fast_dividef": np.divide, "div_rn": np.divide, "add_rn": np.add,
    "sub_rn": np.subtract, "mul_rn": np.multiply, "rhypot": lambda a, b: 1.0 / np.hypot(a, b),
}
BINARY |= {f"{op}_{mode}": BINARY[f"{op}_rn"] for op in ("add", "sub", "mul", "div") for mode in ("rd", "ru", "rz")}
UNARY |= {f"sqrt_{mode}": np.sqrt for mode in ("rd", "ru", "rz")}
UNARY |= {f"rcp_{mode}": lambda v: 1.0 / v for mode in ("rn", "rd", "ru", "rz")}
TERNARY = {f"fma{mode}": lambda a, b, c: a * b + c for mode in ("", "_rn", "_rd", "_ru", "_rz")}
# tests of a float: (numpy test, Triton's result type name); rounding modes above differ by at most an ulp
PREDICATES = {"isnan": (np.isnan, "int1"), "isinf": (np.isinf, "int1"), "finitef": (np.isfinite, "int1"),
              "isfinited": (np.isfinite, "int1"), "signbit": (np.signbit, "int32")}
_ORIGINALS: list[tuple[object, str, object]] = []  # (module, name, Triton's own function)


@patch_once
def install() -> None:
    """Patch the libdevice modules (once)."""
    import triton.language as tl
    from triton.language.extra import libdevice
    from triton.runtime.interpreter import TensorHandle

    modules = [libdevice]
    try:
        from triton.language.extra.cuda import libdevice as cuda_libdevice

        modules.append(cuda_libdevice)
    except ImportError:  # pragma: no cover - a build without the CUDA backend
        pass
    for mod in modules:
        for name in [n for n in dir(mod) if not n.startswith("_") and callable(getattr(mod, n))]:
            fn = UNARY.get(name) or BINARY.get(name) or TERNARY.get(name)
            _ORIGINALS.append((mod, name, getattr(mod, name)))
            if name in PREDICATES:
                test, result = PREDICATES[name]
                setattr(mod, name, _elementwise(name, test, tl, TensorHandle, getattr(tl, result)))
            else:
                setattr(mod, name, _elementwise(name, fn, tl, TensorHandle) if fn else _unsupported(name))


def stand_ins() -> dict[int, object]:
    """id of each numpy body installed -> Triton's own function it stands in for."""
    return {id(getattr(mod, name)): fn for mod, name, fn in _ORIGINALS if getattr(mod, name) is not fn}


def _unsupported(name: str):
    def call(*args, **kwargs):
        raise NotImplementedError(f"libdevice.{name} {UNSUPPORTED} (it runs on a GPU)")

    call.__name__ = name
    return call


def _elementwise(name: str, fn, tl, TensorHandle, result=None):  # noqa: N803 - the interpreter's class
    """A numpy body for libdevice's ``name``: computed in float64, stored in the argument's dtype (or, for a
    test, in ``result``: ``tl.int1`` or ``tl.int32``)."""
    def call(*args, _semantic=None, **kwargs):
        like = next((a for a in args if isinstance(a, tl.tensor)), None)
        if like is None or kwargs or not like.dtype.is_floating():
            raise NotImplementedError(f"libdevice.{name} on {like.dtype if like is not None else 'scalars'} "
                                      f"{UNSUPPORTED} (it runs on a GPU)")
        values = [_as_f64(a, tl) for a in args]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*values))
        shape = np.broadcast_shapes(*(np.shape(v) for v in values))
        out = np.broadcast_to(out, shape)
        if result is None:
            return tl.tensor(TensorHandle(_store(out.astype(np.float64), like.dtype), like.dtype), like.type)
        ty = tl.block_type(result, list(like.type.shape)) if like.type.is_block() else result
        data = out.astype(np.bool_ if result == tl.int1 else np.int32)
        return tl.tensor(TensorHandle(np.ascontiguousarray(data), result), ty)

    call.__name__ = name
    return call


def _as_f64(a, tl) -> np.ndarray:
    if not isinstance(a, tl.tensor):
        return np.float64(a)
    data = a.handle.data
    return (to_f32(data) if a.dtype.is_bf16() else np.asarray(data)).astype(np.float64)


def _store(values: np.ndarray, scalar) -> np.ndarray:
    if scalar.is_bf16():
        return to_bf16(values.astype(np.float32))
    return values.astype({16: np.float16, 32: np.float32, 64: np.float64}[scalar.primitive_bitwidth])
