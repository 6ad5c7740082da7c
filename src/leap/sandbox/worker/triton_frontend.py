"""Every kernel launched on the CPU must compile as Triton for a GPU (issue 12, CPU checks).

Under Triton's CPU interpreter a ``@triton.jit`` body runs as plain Python: a "kernel" that turns a value
into a Python int through ``len(range(t))``, calls ``math.tanh`` on it or keeps it out of the interpreter's
rewrite with an annotated assignment computes on the host, and the interpreter runs it (a red-team pass,
2026-12-05, got ``ok`` that way). Such a body does not compile for a GPU. `watch` wraps the interpreter's
launch: before a kernel runs with a given signature and the values it reads from its module, Triton's own
front end (AST to TTIR, for an NVIDIA target; no GPU or driver needed) compiles it with the launch's argument
types and constexpr values. What the front end compiles must be what the interpreter runs: a kernel whose
closure shadows a module global (the interpreter reads the global), or whose constexpr parameters the two read
differently (string annotations), is refused; the interpreter finds the ``def`` as the front end does
(`interpreter_rewrite`). Once the check has run in this process (`available`), every failure of it is the
candidate's `KernelCheckError` (a compile error), so no launch can make it skip.
"""

from __future__ import annotations

import contextlib
import inspect

from leap.sandbox.worker import kernel_trace

try:
    import triton.language as tl
except ImportError:  # pragma: no cover - no triton
    tl = None

TARGET = ("cuda", 90, 32)  # an H100-class target: what the GPU judge compiles for
SHARED_LIMIT = 232_448     # bytes of shared memory one program may use on that target (227 KiB, sm_90)


class KernelCheckError(Exception):
    """A launched kernel the front-end check cannot accept (read by the judge as a compile error)."""


def watch(failures: list[str]) -> bool:
    """Wrap the interpreter's ``InterpretedFunction.run``: a kernel the check refuses, or whose run reaches a line
    the front end did not compile, raises at launch and is noted in ``failures`` (also when the candidate
    catches the error). A ``@triton.jit`` function called outside a kernel (host code; Triton refuses it on a
    GPU) is refused too. Call before candidate code runs: the availability probe runs here."""
    try:
        from triton.runtime.interpreter import InterpretedFunction
    except ImportError:  # pragma: no cover - no triton
        return False
    available()
    kernel_trace.install()
    original, called = InterpretedFunction.run, InterpretedFunction.__call__
    checked: dict[tuple, tuple] = {}
    depth = [0]

    def run(self, *args, grid, warmup, **kwargs):
        refused, compiled, bound = _check(self, args, kwargs, checked)
        if refused is None and bound is not None:  # every parameter passed: the interpreter's own re-executed
            args, kwargs = bound  # defaults (module globals, jit options as names) never decide a value
        if refused is None:
            depth[0] += 1
            try:
                stray = kernel_trace.traced(compiled, self.fn.__code__.co_filename,
                                            lambda: original(self, *args, grid=grid, warmup=warmup, **kwargs))
            finally:
                depth[0] -= 1
            if not stray:
                return None
            refused = KernelCheckError(f"the interpreter ran code on line {stray} of {self.fn.__name__} that Triton's "
                                       "front end did not compile for these arguments (a value the two type "
                                       "differently)")
        failures.append(f"the kernel {self.fn.__name__} does not compile as Triton for a GPU: {refused}")
        raise refused

    def call(self, *args, **kwargs):
        if not depth[0]:
            failures.append(f"the @triton.jit function {self.fn.__name__} was called outside a kernel")
            raise KernelCheckError(f"{self.fn.__name__} is a @triton.jit function called outside a kernel "
                                   "(launch it with kernel[grid](...), or call it from a kernel)")
        return called(self, *args, **kwargs)

    InterpretedFunction.run, InterpretedFunction.__call__ = run, call
    return True


def _check(kernel, args, kwargs, checked: dict) -> tuple:
    """``(refusal or None, compiled lines, (args, kwargs) with every parameter given)`` for one launch; when
    the check cannot run in this process at all: ``(None, {}, None)`` and no line trace applies."""
    if not available():
        return None, {}, None
    try:
        jit, signature, constexprs, key, bound = _prepare(kernel.fn, args, kwargs)
    except KernelCheckError as exc:
        return exc, {}, None
    except Exception as exc:  # noqa: BLE001 - a launch the check cannot type is not checked: refused
        return KernelCheckError(f"the launch could not be typed as Triton's launcher types it "
                                f"({type(exc).__name__}: {exc})"), {}, None
    options = {k: v for k, v in kwargs.items() if k not in bound.arguments}  # num_warps, ...: the interpreter's
    launch = tuple(int(options[k]) if isinstance(options.get(k), int) else d for k, d in (("num_warps", 4),
                                                                                          ("num_stages", 3)))
    if launch[0] > 32 or launch[0] < 1 or launch[0] & (launch[0] - 1):
        return KernelCheckError(f"num_warps={launch[0]}: a GPU program has a power of two of at most 32 warps "
                                "(1,024 threads)"), {}, None
    ones = frozenset(k for k, v in bound.arguments.items() if type(v) is int and v == 1)  # noqa: E721 - not bool
    spec = key + launch + tuple(sorted(ones))
    if spec not in checked:
        checked[spec] = _compile(jit, signature, constexprs, launch=launch, ones=ones)
    refused, compiled = checked[spec]
    arguments = dict(bound.arguments)
    for path, value in constexprs.items():  # a tuple entry the front end took as a constant (a stride of 1)
        if isinstance(path, tuple):         # is one in the interpreter too
            name = jit.params[path[0]].name
            arguments[name] = _with_constant(arguments[name], path[1:], value)
    return refused, compiled, ((), {**arguments, **options})


def _with_constant(value, path: tuple, constant):
    """``value`` (nested tuples) with the entry at ``path`` a ``tl.constexpr``."""
    if not path:
        return tl.constexpr(constant)
    items = list(value)
    items[path[0]] = _with_constant(items[path[0]], path[1:], constant)
    return type(value)(items) if not hasattr(value, "_fields") else type(value)(*items)


def _prepare(fn, args, kwargs) -> tuple:
    """The ``JITFunction``, Triton's signature and constexpr values of one launch of ``fn``, and its cache key."""
    params = inspect.signature(fn).parameters  # launch options (num_warps, ...) are not the kernel's
    bound = inspect.signature(fn).bind(*args, **{k: v for k, v in kwargs.items() if k in params})
    bound.apply_defaults()
    jit = _jit(fn)
    _same_reading(fn, jit)
    signature, constexprs = _signature(jit, bound.arguments)
    key = (id(fn), tuple(signature.items()), tuple((k, _value_key(v)) for k, v in constexprs.items()),
           _fingerprint(fn, set()))
    return jit, signature, constexprs, key, bound


def _value_key(value) -> tuple:
    """A constexpr value in the cache key: constants by value, anything else (a kernel) by identity."""
    if value is None or isinstance(value, int | float | str | bool):
        return ("v", repr(value))
    return ("id", id(value))


_AVAILABLE: list[bool] = []


def available() -> bool:
    """Whether the check runs in this process: probed once, along the same path as a launch, on a kernel of the
    harness's own (another Triton whose internals differ turns the check off rather than refusing everything)."""
    if not _AVAILABLE:
        try:
            import torch

            jit, signature, constexprs, _, _ = _prepare(_probe, (torch.empty(16), 16), {"BLOCK": 16, "num_warps": 4})
            _AVAILABLE.append(_compile(jit, signature, constexprs, probe=True)[0] is None)
        except Exception as exc:  # noqa: BLE001 - no front end here
            _AVAILABLE.append(False)
            PROBE_ERROR.append(f"{type(exc).__name__}: {exc}")
    return _AVAILABLE[0]


PROBE_ERROR: list[str] = []  # why the probe failed, when it did


def _probe(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1.0, mask=offs < n)


class _Unavailable(Exception):
    """The front end reached an interpreter object the check did not turn into a ``JITFunction``."""


@contextlib.contextmanager
def _compiling():
    """The front end as a GPU compile runs it: under ``TRITON_INTERPRET=1`` Triton's ``constexpr_function``
    returns a plain value instead of a ``constexpr`` (the knob says "no constexpr in the interpreter"), and
    ``tl.static_range`` then refuses the bound a GPU compile accepts."""
    import triton

    runtime = triton.knobs.runtime
    before = runtime.interpret
    runtime.interpret = False
    try:
        yield
    finally:
        runtime.interpret = before


def _compile(jit, signature: dict, constexprs: dict, probe: bool = False, launch: tuple = (4, 3),
             ones: frozenset = frozenset()) -> tuple:
    """``(refusal or None, {(file, def line): what the front end compiled of it})`` for one signature and
    ``launch`` (num_warps, num_stages). A kernel with a ``tl.dot`` is also lowered to LLVM IR, where its shared
    memory is known: more than the target has is a compile error on a GPU (red-team round 30: a 256x256x128 fp32
    tile in 4 stages, 1 MiB, ran under the interpreter)."""
    from triton.compiler import code_generator
    from triton.compiler.compiler import ASTSource
    from triton.compiler.errors import CompilationError

    recorder = kernel_trace.Recorder()
    visit = code_generator.CodeGenerator.visit

    def recording(self, node):
        return recorder.visit(self, node, visit)

    try:
        src = ASTSource(jit, signature, constexprs)
        code_generator.CodeGenerator.visit = recording
        with _as_jit(jit.fn), _compiling():
            module, *_held = _ttir(src, launch)
        code_generator.CodeGenerator.visit = visit
        text = str(module)
        shared = 0
        if "tt.dot" in text:  # as compiled here first; 16-bit operands again with a full-size launch's hints
            shared = _shared_bytes(jit, signature, constexprs, launch, ones, hints=False)
            if shared <= SHARED_LIMIT and "f16" in text:
                shared = _shared_bytes(jit, signature, constexprs, launch, ones, hints=True)
        if shared > SHARED_LIMIT:
            return KernelCheckError(f"it needs {shared:,} bytes of shared memory with num_warps={launch[0]}, "
                                    f"num_stages={launch[1]}; one program on an sm_90 GPU has {SHARED_LIMIT:,} "
                                    "(Triton: out of resource): use smaller tiles or fewer stages"), {}
    except Exception as exc:
        if probe:
            raise
        cause = exc
        while cause is not None:
            if isinstance(cause, _Unavailable):
                return KernelCheckError(f"it calls the kernel {cause} through a value Triton cannot call from a "
                                        "kernel (call it by its name)"), {}
            cause = cause.__cause__ or cause.__context__
        return (exc if isinstance(exc, CompilationError) else KernelCheckError(f"{type(exc).__name__}: {exc}")), {}
    finally:
        code_generator.CodeGenerator.visit = visit
    return None, recorder.result()


def _ttir(src, launch: tuple) -> tuple:
    """``(TTIR module, backend, options, context)`` of ``src`` (an ``ASTSource``) for `TARGET` with ``launch``'s
    (num_warps, num_stages); the caller keeps the context alive as long as it uses the module."""
    from triton._C.libtriton import ir
    from triton.backends import backends
    from triton.backends.compiler import GPUTarget

    target = GPUTarget(*TARGET)
    backend = backends["nvidia"].compiler(target)
    options = backend.parse_options({"num_warps": launch[0], "num_stages": launch[1]})
    context = ir.context()
    ir.load_dialects(context)
    backend.load_dialects(context)
    module = src.make_ir(target, options, backend.get_codegen_implementation(options), backend.get_module_map(),
                         context)
    return module, backend, options, context


def _shared_bytes(jit, signature: dict, constexprs: dict, launch: tuple, ones: frozenset, hints: bool) -> int:
    """The shared memory the kernel needs once lowered for the target (no GPU needed). With ``hints``, specialised
    as a GPU launch at the task's full sizes specialises it: integer arguments equal to 1 become constants (a unit
    stride), every other pointer and integer is taken as divisible by 16 (with those hints Triton pipelines 16-bit
    loads; round 31: a 5-stage bf16 GEMM counted one stage at the CPU's small, odd sizes). Without them the
    lowering is cheaper (fp32 operands come out the same)."""
    from triton.backends.compiler import Language
    from triton.compiler.compiler import ASTSource

    signature, constexprs, attrs = dict(signature), dict(constexprs), {}
    for i, p in enumerate(jit.params if hints else ()):
        ty = signature.get(p.name)
        if p.name in ones and ty in ("i32", "i64") and i not in jit.do_not_specialize:
            signature[p.name], constexprs[p.name] = "constexpr", 1
        elif isinstance(ty, str) and (ty.startswith("*") or ty in ("i32", "i64")):
            attrs[(i,)] = [["tt.divisibility", 16]]
    try:
        with _as_jit(jit.fn), _compiling():
            module, backend, options, _context = _ttir(ASTSource(jit, signature, constexprs, attrs), launch)
        stages: dict = {}
        backend.add_stages(stages, options, Language.TRITON)
        metadata: dict = {}
        for name in ("ttir", "ttgir", "llir"):
            module = stages[name](module, metadata)
    except Exception:  # noqa: BLE001 - a lowering this Triton cannot do here decides nothing (the GPU's may)
        return 0
    return int(metadata.get("shared") or 0)


def _same_reading(fn, jit) -> None:
    """Refuse a kernel that the interpreter would run differently from what the front end compiles: names it
    reads from an enclosing function that the interpreter's namespace binds to another object (it re-executes
    the source in the module's globals), or parameters whose constexpr-ness the two read differently."""
    import builtins

    from triton.runtime import interpreter
    from triton.runtime.jit import _normalize_ty

    # the interpreter's namespace: the module's globals, then its own (it copies in those the module lacks)
    missing = object()
    closure = _closure(fn, missing)
    shadowed = sorted(n for n, v in closure.items()
                      if next((ns[n] for ns in (fn.__globals__, vars(interpreter), vars(builtins)) if n in ns),
                              v) is not v)
    if shadowed:
        raise KernelCheckError(f"it reads {', '.join(shadowed)} from an enclosing function, and the module binds "
                               "the same name to something else (give the kernel's value its own name)")
    interpreted = {n for n, ty in inspect.get_annotations(fn).items() if _normalize_ty(ty) == "constexpr"}
    compiled = {p.name for p in jit.params if p.is_constexpr}
    if interpreted != compiled:
        raise KernelCheckError(f"parameters {', '.join(sorted(interpreted ^ compiled))} are tl.constexpr to one "
                               "reading of the annotations and not to the other: annotate them `tl.constexpr`")


def _fingerprint(fn, seen: set, depth: int = 0) -> tuple:
    """The values a kernel (and the kernels it calls) reads from its module and closure, as far as they decide
    what compiles: constants by value, other objects by identity."""
    from triton.runtime.interpreter import InterpretedFunction

    if id(fn) in seen or depth > 8:
        return ()
    seen.add(id(fn))
    names: set[str] = set()
    todo = [fn.__code__]
    while todo:
        code = todo.pop()
        names |= set(code.co_names) | set(code.co_freevars)
        todo += [c for c in code.co_consts if inspect.iscode(c)]
    scope = dict(fn.__globals__)
    scope.update(_closure(fn, None))
    out = []
    for name in sorted(names):
        value = scope.get(name)
        if isinstance(value, tl.constexpr):
            out.append((name, "c", repr(value.value)))
        elif isinstance(value, InterpretedFunction):
            out.append((name, "k", id(value), _fingerprint(value.fn, seen, depth + 1)))
        else:
            out.append((name, *_value_key(value)))
    return tuple(out)


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
    """While the front end runs: every ``InterpretedFunction`` that Triton's language modules and tensor methods,
    ``fn``'s globals and closure (and theirs, in turn) hold is its ``JITFunction``, every libdevice numpy body
    Triton's own function, and calling an ``InterpretedFunction`` is `_Unavailable` (an interpreter call would
    patch the language for good)."""
    import sys

    from triton.runtime.interpreter import InterpretedFunction

    from leap.sandbox.worker.interpreter_libdevice import stand_ins as libdevice_stand_ins

    swapped: list[tuple[object, str | None, object]] = []  # (dict, class or cell, key, original)
    stand_ins = libdevice_stand_ins()
    for scope, key, value in _PRISTINE:  # the interpreter's patches that a launch left behind, undone
        if scope.get(key, value) is not value:
            swapped.append((scope, key, scope[key]))
            scope[key] = value
    todo = [vars(m) for n, m in list(sys.modules.items()) if n.startswith("triton.language") and m is not None]
    todo.append(fn.__globals__)
    cells = list(fn.__closure__ or ())
    seen: set[int] = set()

    def stand_in(value):
        """What the front end sees for ``value`` (queuing an interpreted kernel's own scopes), or None."""
        if id(value) in stand_ins:  # ``from ...libdevice import erf``: the harness's numpy body, by name
            return stand_ins[id(value)]
        if isinstance(value, InterpretedFunction):
            todo.append(value.fn.__globals__)
            cells.extend(value.fn.__closure__ or ())
            return _jit(value.fn)
        return None

    for cls in (tl.core.tensor, tl.core.tensor_descriptor_base):  # ``x.sum(axis=0)``: a member wrapper forwards
        for key, value in list(vars(cls).items()):              # to an interpreted kernel; Triton without the
            inner = _member_target(value)                          # interpreter puts the JITFunction there
            if inner is not None:
                swapped.append((cls, key, value))
                setattr(cls, key, stand_in(inner))
    while todo or cells:
        if cells:
            cell = cells.pop()
            value = cell.cell_contents if filled(cell) else None
            new = stand_in(value)
            if new is not None:
                swapped.append((cell, None, value))
                cell.cell_contents = new
            continue
        scope = todo.pop()
        if id(scope) in seen:
            continue
        seen.add(id(scope))
        for key, value in list(scope.items()):
            new = stand_in(value)
            if new is not None:
                swapped.append((scope, key, value))
                scope[key] = new
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
            elif isinstance(where, type):
                setattr(where, key, value)
            else:
                where[key] = value


def _member_target(value):
    """The ``InterpretedFunction`` a ``tl.tensor`` member wrapper (``_tensor_member_fn``) forwards to, or None."""
    from triton.runtime.interpreter import InterpretedFunction

    if not callable(value) or not getattr(value, "__qualname__", "").endswith("_tensor_member_fn.<locals>.wrapper"):
        return None
    inner = _closure(value, None).get("fn")
    return inner if isinstance(inner, InterpretedFunction) else None


def _closure(fn, empty) -> dict:
    """``fn``'s free names and the values its closure cells hold (``empty`` for a cell not filled yet)."""
    cells = fn.__closure__ or ()
    return dict(zip(fn.__code__.co_freevars, (c.cell_contents if filled(c) else empty for c in cells), strict=False))


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

    signature: dict[str, object] = {}
    constexprs: dict[object, object] = {}
    for i, param in enumerate(jit.params):
        value = arguments[param.name]
        if isinstance(value, InterpretedFunction):
            value = _jit(value.fn)
        if param.is_constexpr or _constant(value):
            value = getattr(value, "value", value)
            signature[param.name] = "constexpr"
            constexprs[param.name] = _jit(value.fn) if isinstance(value, InterpretedFunction) else value
        elif param.annotation_type:  # ``n: tl.float32``: typed by its annotation, as Triton's launcher does
            signature[param.name] = param.annotation_type
        else:  # tensors, numbers, descriptors, tuples of them; anything else raises: the check is skipped
            signature[param.name] = ty = mangle_type(value)
            constexprs.update(_tuple_constants(ty, value, (i,)))
    return signature, constexprs


def _tuple_constants(ty, value, path: tuple) -> dict:
    """The values a tuple argument's ``constexpr`` entries stand for (Triton specialises a 1 in a tuple, e.g.
    a contiguous stride), keyed by their path."""
    if not isinstance(ty, tuple):
        return {path: value} if ty == "constexpr" else {}
    out: dict = {}
    for j, (t, v) in enumerate(zip(ty, value, strict=True)):
        out.update(_tuple_constants(t, v, (*path, j)))
    return out


def _constant(value) -> bool:
    """Whether Triton takes ``value`` as a compile-time constant (None, a dtype, a string, a kernel)."""
    import triton.language as tl
    from triton.runtime.jit import JITFunction

    return value is None or isinstance(value, tl.dtype | tl.constexpr | str | JITFunction)
