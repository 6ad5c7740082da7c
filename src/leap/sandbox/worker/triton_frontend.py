"""Every kernel launched on the CPU must compile as Triton for a GPU (issue 12, CPU checks).

Under Triton's CPU interpreter a ``@triton.jit`` body runs as plain Python: a "kernel" that turns a value
into a Python int through ``len(range(t))``, calls ``math.tanh`` on it or keeps it out of the interpreter's
rewrite with an annotated assignment computes on the host, and the interpreter runs it (a red-team pass,
2026-12-05, got ``ok`` that way). Such a body does not compile for a GPU. `watch` wraps the interpreter's
launch: before a kernel first runs with a given signature, Triton's own front end (AST to TTIR, for an
NVIDIA target; no GPU or driver needed) compiles it with the launch's argument types and constexpr values.
A `CompilationError` there is the candidate's (the kernel is refused); any other failure of the check itself
(an API this Triton lacks, an argument it cannot type) skips it, never blaming the candidate.
"""

from __future__ import annotations

import contextlib
import inspect

TARGET = ("cuda", 90, 32)  # an H100-class target: what the GPU judge compiles for


def watch(failures: list[str]) -> bool:
    """Wrap the interpreter's ``InterpretedFunction.run``: a kernel whose body the front end refuses raises its
    `CompilationError` at launch and is noted in ``failures`` (also when the candidate catches it)."""
    try:
        from triton.compiler.errors import CompilationError
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # pragma: no cover - no triton
        return False
    original = InterpretedFunction.run
    checked: dict[tuple, Exception | None] = {}

    def run(self, *args, grid, warmup, **kwargs):
        refused = _check(self, args, kwargs, checked, CompilationError)
        if refused is not None:
            failures.append(f"the kernel {self.fn.__name__} does not compile as Triton for a GPU: {refused}")
            raise refused
        return original(self, *args, grid=grid, warmup=warmup, **kwargs)

    InterpretedFunction.run = run
    return True


def _check(kernel, args, kwargs, checked: dict, compilation_error) -> Exception | None:
    """None when ``kernel`` compiles for `TARGET` with these arguments (or the check cannot run here), else the
    front end's `CompilationError`."""
    try:
        fn = kernel.fn
        bound = inspect.signature(fn).bind(*args, **kwargs)
        bound.apply_defaults()
        jit = _jit(fn)
        signature, constexprs = _signature(jit, bound.arguments)
        key = (id(fn), tuple(signature.items()), tuple((k, repr(v)) for k, v in constexprs.items()))
    except Exception:  # noqa: BLE001 - arguments the check cannot type: the launch itself reports problems
        return None
    if key not in checked:
        checked[key] = _compile(jit, signature, constexprs, compilation_error)
    return checked[key]


class _Unavailable(Exception):
    """The check met an interpreter object it cannot compile through: skipped, never the candidate's."""


def _compile(jit, signature: dict, constexprs: dict, compilation_error) -> Exception | None:
    try:
        from triton._C.libtriton import ir
        from triton.backends import backends
        from triton.backends.compiler import GPUTarget
        from triton.compiler.compiler import ASTSource

        from leap.sandbox.worker import interpreter_libdevice

        target = GPUTarget(*TARGET)
        backend = backends["nvidia"].compiler(target)
        options = backend.parse_options({})
        context = ir.context()
        ir.load_dialects(context)
        backend.load_dialects(context)
        src = ASTSource(jit, signature, constexprs)
        with interpreter_libdevice.originals(), _as_jit(jit.fn):
            src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                        context)
    except compilation_error as exc:
        cause = exc
        while cause is not None:
            if isinstance(cause, _Unavailable):
                return None
            cause = cause.__cause__ or cause.__context__
        return exc
    except Exception:  # noqa: BLE001 - the check could not run here (another Triton): skipped
        return None
    return None


def _pristine() -> list[tuple[dict, str, object]]:
    """Triton's language namespaces as imported, before any launch: a device function called inside a kernel
    patches ``triton.language.core`` with the interpreter's semantics and never undoes it (Triton 3.9), which
    the front end must not see. Patches already left (a launch before this import) are traced back to what
    they replaced: the wrapped builtin, or the same name in ``triton.language``."""
    import sys

    try:
        import triton.language as tl
    except ImportError:  # pragma: no cover - no triton
        return []
    out = []
    for name, mod in list(sys.modules.items()):
        if not name.startswith("triton.language") or mod is None:
            continue
        for key, value in vars(mod).items():
            if key.startswith("__"):
                continue
            if _interpreter_made(value):
                value = (getattr(value, "__kwdefaults__", None) or {}).get("member", vars(tl).get(key))
                if value is None or _interpreter_made(value):
                    continue  # not known: left as it is
            out.append((vars(mod), key, value))
    return out


def _interpreter_made(value) -> bool:
    """A function the interpreter's language patches made (or ``print``, its ``static_print``)."""
    import builtins
    import functools

    if isinstance(value, functools.partial):
        value = value.func
    code = getattr(value, "__code__", None)
    return value is builtins.print or (code is not None and code.co_filename.endswith(
        ("runtime/interpreter.py", "runtime\\interpreter.py")))


_PRISTINE = _pristine()  # at harness import, before any candidate code or launch
_JIT: dict[int, object] = {}  # JITFunction per Python function, made once per process


def _jit(fn):
    """The ``JITFunction`` of a kernel's Python function (under the interpreter, ``@triton.jit`` made an
    ``InterpretedFunction``)."""
    from triton.runtime.jit import JITFunction

    if id(fn) not in _JIT:
        _JIT[id(fn)] = (fn, JITFunction(fn))  # fn kept alive: its id stays its own
    return _JIT[id(fn)][1]


@contextlib.contextmanager
def _as_jit(fn):
    """While the front end runs: every ``InterpretedFunction`` that Triton's language modules, ``fn``'s globals
    and closure (and theirs, in turn) hold is its ``JITFunction``, and calling one is `_Unavailable` (an
    interpreter call would patch the language for good)."""
    import sys

    from triton.runtime.interpreter import InterpretedFunction

    swapped: list[tuple[object, str | None, object]] = []  # (dict or cell, key, original)
    for scope, key, value in _PRISTINE:  # the interpreter's patches that a launch left behind, undone
        if scope.get(key, value) is not value:
            swapped.append((scope, key, scope[key]))
            scope[key] = value
    todo = [vars(m) for n, m in list(sys.modules.items()) if n.startswith("triton.language") and m is not None]
    todo.append(fn.__globals__)
    cells = list(fn.__closure__ or ())
    seen: set[int] = set()
    while todo or cells:
        if cells:
            cell = cells.pop()
            value = cell.cell_contents if filled(cell) else None
            if isinstance(value, InterpretedFunction):
                swapped.append((cell, None, value))
                cell.cell_contents = _jit(value.fn)
                todo.append(value.fn.__globals__)
                cells += list(value.fn.__closure__ or ())
            continue
        scope = todo.pop()
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        for key, value in list(scope.items()):
            if isinstance(value, InterpretedFunction):
                swapped.append((scope, key, value))
                scope[key] = _jit(value.fn)
                todo.append(value.fn.__globals__)
                cells += list(value.fn.__closure__ or ())
    call = InterpretedFunction.__call__

    def unavailable(self, *args, **kwargs):
        raise _Unavailable(getattr(self, "__name__", "kernel"))

    InterpretedFunction.__call__ = unavailable
    try:
        yield
    finally:
        InterpretedFunction.__call__ = call
        for where, key, value in reversed(swapped):
            if key is None:
                where.cell_contents = value
            else:
                where[key] = value


def filled(cell) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _signature(jit, arguments: dict) -> tuple[dict, dict]:
    """Triton's argument types (``*fp32``, ``i32``, ...) and the constexpr values of one launch."""
    from triton.runtime.interpreter import InterpretedFunction
    from triton.runtime.jit import mangle_type

    signature: dict[str, str] = {}
    constexprs: dict[str, object] = {}
    for param in jit.params:
        value = arguments[param.name]
        if isinstance(value, InterpretedFunction):
            value = _jit(value.fn)
        if param.is_constexpr or _constant(value):
            signature[param.name] = "constexpr"
            constexprs[param.name] = getattr(value, "value", value)
        else:  # tensors, numbers, descriptors, tuples of them; anything else raises: the check is skipped
            signature[param.name] = mangle_type(value)
    return signature, constexprs


def _constant(value) -> bool:
    """Whether Triton takes ``value`` as a compile-time constant (None, a dtype, a string, a kernel)."""
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    return value is None or isinstance(value, tl.dtype | tl.constexpr | str | JITFunction)
