"""Run-time backstop for the CPU: which PyTorch compute ops ran during ``forward`` (issue 12).

The static gate can always be out-witted by more indirection, so the child also watches what actually
computed: a ``TorchDispatchMode`` installed by the harness BEFORE the candidate is imported sees every
aten op on a tensor. While armed (only around ``forward``) it records ops that are not allocation,
view, copy or reshape and not in the task's allow-list (``LEAP_ALLOWED_OPS`` families). The Triton CPU
interpreter moves data with ``copy_``/``set_``/``new_empty`` and computes with numpy, so a legitimate
Triton kernel records nothing. Interpreter launches are counted: a Triton candidate whose forward
launched no kernel at all (its launch sits in a branch that never runs while numpy or Python computes) is
rejected, and under KernelBench's rules partial PyTorch is fine as long as a custom kernel ran.

Tamper checks (`Guard.problems`): the mode must still be on the dispatch stack, the very object the
harness pushed; its state lives in closure cells whose identities are checked; a probe op with a
judge-sent nonce must be seen by it at the end (a mode that was switched off or swapped does not see it);
and PyTorch's switches that take a dispatch mode off the stack or exclude the Python dispatch key for a
while (`SWITCHES`) are wrapped before the candidate is imported, so using one during forward is reported
even when the mode is back in place afterwards.
On the GPU this is not installed: the "custom kernels carry >= 50% of GPU time" check plays its part.
"""

from __future__ import annotations

import collections
import sys
from collections.abc import Iterable

import torch
from torch.utils._python_dispatch import TorchDispatchMode, _get_current_dispatch_mode_stack

from leap.sandbox.worker import host_reads, triton_frontend

# allocation, views, copies, reshapes, metadata and random fills: moving data, never computing it
ALLOWED = frozenset("""
empty empty_like empty_strided empty_permuted new_empty new_empty_strided zeros zeros_like new_zeros ones
ones_like new_ones full full_like new_full arange scalar_tensor lift_fresh lift_fresh_copy _to_copy copy_
clone contiguous detach alias view _unsafe_view reshape _reshape_alias _reshape_copy as_strided expand
permute transpose t unsqueeze squeeze flatten unflatten slice select narrow split split_with_sizes chunk
unbind cat stack fill_ zero_ set_ resize_ _local_scalar_dense sym_size sym_stride sym_numel
unfold diagonal unsqueeze_ squeeze_ flip roll repeat constant_pad_nd pad
sym_storage_offset view_as_real view_as_complex movedim pin_memory is_same_size _has_compatible_shallow_copy_type
rand rand_like randn randn_like randint randint_like normal_ uniform_ bernoulli_ random_ randperm
promote_types result_type can_cast
""".split())  # the last line: dtype queries, which compute a dtype and never data
# task allow-list names (``LEAP_ALLOWED_OPS``) -> the aten ops they reach the dispatcher as
FAMILIES: dict[str, frozenset[str]] = {
    "matmul": frozenset({"mm", "bmm", "matmul", "addmm", "baddbmm", "addmv", "mv", "dot", "addbmm"}),
    "linear": frozenset({"linear", "addmm", "mm", "bmm", "matmul", "add"}),
    "conv2d": frozenset({"convolution", "_convolution", "conv2d", "mkldnn_convolution", "_slow_conv2d_forward",
                         "slow_conv2d_forward", "convolution_overrideable", "_nnpack_spatial_convolution",
                         "cudnn_convolution", "thnn_conv2d", "add"}),
}
PROBE = "mul"  # the op the end-of-run probe uses
# (module, attribute): what switches a dispatch mode off for a while; wrapped by `install`
SWITCHES = (("torch._C", "_DisableTorchDispatch"), ("torch._C", "_pop_torch_dispatch_stack"),
            ("torch._C", "_unset_dispatch_mode"), ("torch._C", "_set_dispatch_mode"),
            ("torch._C", "_dispatch_tls_set_dispatch_key_excluded"), ("torch._C", "_ExcludeDispatchKeyGuard"),
            ("torch._C", "_ForceDispatchKeyGuard"), ("torch._C", "_push_on_torch_dispatch_stack"),
            ("torch.utils._python_dispatch", "_disable_current_modes"),
            ("torch.utils._python_dispatch", "_pop_mode"), ("torch.utils._python_dispatch", "_pop_mode_temporarily"))
# threads and processes, started at any time once the guard is installed: the recording mode is per thread, and
# a forked process records into its own memory, so PyTorch work done there is out of the backstop's sight (a
# thread started and joined inside forward, or started at import, computed the answer unseen: 2026-12-05)
SPAWNS = (("threading", "_start_new_thread"), ("threading", "_start_joinable_thread"),
          ("_thread", "start_new_thread"), ("_thread", "start_joinable_thread"), ("_thread", "start_new"),
          ("os", "fork"), ("os", "forkpty"), ("os", "posix_spawn"), ("os", "posix_spawnp"), ("os", "system"),
          ("_posixsubprocess", "fork_exec"))

# a conversion between dtypes computes — a float->int copy truncates, an int->int copy sign-extends or wraps,
# a float->float copy rounds and overflows to inf — nonlinearities from which relu was built with copies and
# dtype views alone (two red-team passes, 2026-12-03), and with ``fill_`` from a 0-d tensor, ``cat`` of mixed
# dtypes or into an ``out=`` of another (2026-12-05). So an allowed op whose tensors (and ``dtype=``) are not
# all of one dtype converts, except the ops below, which read only a shape. Conversions belong in the kernels
# (the gate refuses .to(dtype) in forward); the Triton interpreter's own copies keep the dtype
SHAPE_ONLY = frozenset({"empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like",
                        "randint_like", "new_empty", "new_empty_strided", "new_zeros", "new_ones", "new_full",
                        "promote_types", "result_type", "can_cast", "is_same_size",
                        "_has_compatible_shallow_copy_type"})


# the task-allowed ops (`FAMILIES`): on integer tensors a GEMM wraps around, a nonlinearity (a red-team
# pass built relu from a bf16->int16 view, int32 mm and int16 addmm/bmm): allowed on floating point only
FAMILY_OPS = frozenset().union(*FAMILIES.values()) - ALLOWED
# the library calls an allowed family is for (its GEMMs and convolutions, not its bias ``add``): a forward's must be
# among the reference's, by shape (`library_signature`, `beyond`, `judge/op_count`); an extra one computed a pooling
# as a constant-weight depthwise convolution, a mean as a matmul with a 1/N column, a residual add as
# ``addmm(x, s, I)`` (round 25)
LIBRARY_CALLS = FAMILY_OPS - {"add"}
# GEMMs that also add their first operand (``beta * input``): allowed as a layer's bias, not as an activation
ADDS_INPUT = frozenset({"addmm", "addmv", "baddbmm", "addbmm"})
GEMM_CALLS = frozenset({"mm", "bmm", "addmm", "baddbmm", "addmv", "mv", "dot", "addbmm"})


def library_signature(name: str, args) -> tuple:
    """What one allowed library call computes, by shape: a GEMM's operand shape and output columns, a
    convolution's input and weight shapes. A forward's calls must be among the reference's (round 26: a GEMM done
    in an own kernel freed the reference's call for a row mean as ``linear`` with a 1/N column)."""
    if name in GEMM_CALLS:
        a, b = (args[1], args[2]) if name in ADDS_INPUT else (args[0], args[1])
        if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
            return ("gemm", *a.shape, b.shape[-1] if b.dim() >= 2 else 1)
    elif len(args) >= 2 and isinstance(args[0], torch.Tensor) and isinstance(args[1], torch.Tensor):
        return ("conv", *args[0].shape, -1, *args[1].shape)
    return (name,)


def converts(args, kwargs) -> bool:
    """Whether the tensors among an op's arguments (in lists too, ``out=`` included) and its ``dtype=`` are
    of more than one dtype."""
    kwargs = kwargs or {}
    dtypes = {kwargs["dtype"]} if isinstance(kwargs.get("dtype"), torch.dtype) else set()
    for a in (*args, *kwargs.values()):
        for t in (a if isinstance(a, tuple | list) else (a,)):
            if isinstance(t, torch.Tensor):
                dtypes.add(t.dtype)
    return len(dtypes) > 1


def reinterprets(args) -> bool:
    """``view(dtype)`` to another dtype: the bits read as another type (a step function of the value)."""
    return (len(args) > 1 and isinstance(args[0], torch.Tensor) and isinstance(args[1], torch.dtype)
            and args[1] != args[0].dtype)


def integer_family_op(args) -> bool:
    """An allowed op (`FAMILY_OPS`) given a tensor that is not floating point."""
    return any(isinstance(a, torch.Tensor) and not (a.is_floating_point() or a.is_complex()) for a in args)


# conversions that are exact (every value of the source is a value of the target, in order): no step, no
# overflow, nothing computed; `x.float()` on any float input or a small integer
_EXACT_INTO = {torch.float32: frozenset({torch.float32, torch.float16, torch.bfloat16, torch.int8, torch.uint8,
                                         torch.int16, torch.bool}),
               torch.float64: frozenset({torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int8,
                                         torch.uint8, torch.int16, torch.int32, torch.bool})}


def widens(name: str, args, kwargs) -> bool:
    """``_to_copy(x, dtype=float32/64)`` or ``dst.copy_(src)`` into float32/64 from a dtype it holds exactly."""
    kwargs = kwargs or {}
    if name == "_to_copy" and args and isinstance(args[0], torch.Tensor):
        src, dst = args[0].dtype, kwargs.get("dtype", args[0].dtype)
    elif name == "copy_" and len(args) > 1 and isinstance(args[0], torch.Tensor) and isinstance(args[1], torch.Tensor):
        src, dst = args[1].dtype, args[0].dtype
    else:
        return False
    return src in _EXACT_INTO.get(dst, ())


def beyond(calls: collections.Counter, budget: collections.Counter) -> list[tuple]:
    """The library calls of ``calls`` that are not among the reference's (``budget``), a few at most. Pure.

    A GEMM may also stand for several of the reference's fused into one: all of its GEMMs with the same rows and
    columns, their inner dimensions summed (an LSTM cell's ``x @ Wx + h @ Wh`` as ``cat([x, h]) @ [Wx; Wh]``), or
    all with the same rows and inner dimension, their columns summed (Q, K and V as one ``x @ [Wq | Wk | Wv]``)."""
    left, out = collections.Counter(budget), []
    for sig in sorted(calls.elements()):
        if left[sig] > 0:
            left[sig] -= 1
            continue
        fused = None
        if sig[0] == "gemm" and len(sig) >= 4:
            gemms = [s for s in left.elements() if s[0] == "gemm" and len(s) == len(sig) and s[1:-2] == sig[1:-2]]
            for same, summed in ((-1, -2), (-2, -1)):  # same columns, inner summed; same inner, columns summed
                group = [s for s in gemms if s[same] == sig[same]]
                if len(group) >= 2 and sum(s[summed] for s in group) == sig[summed]:
                    fused = group
                    break
        if fused is None:
            out.append(sig)
        else:
            left.subtract(fused)
    return out[:3]


def misuse(name: str, args, kwargs, bias_adds_only: bool = False) -> str | None:
    """Why an allowed op computes in this call (converting dtypes, a view as another dtype, an allowed
    GEMM on integers, an add allowed as a linear's or convolution's bias that adds no bias:
    ``bias_adds_only``), as the backstop records it; None when it only moves data."""
    if name == "add" and bias_adds_only and not _adds_a_bias(args):
        return "add (of two activations, not a layer's bias)"
    if name in ADDS_INPUT and bias_adds_only and (kwargs or {}).get("beta", 1) != 0 and not _adds_a_bias(args[:1]):
        return f"{name} (adding a full-size tensor, not a layer's bias)"
    if name in ADDS_INPUT and (kwargs or {}).get("alpha", 1) != 1:
        return f"{name} (scaling the product by alpha)"
    if name not in SHAPE_ONLY and converts(args, kwargs) and not widens(name, args, kwargs):
        return f"{name} (a dtype conversion)"
    if name == "view" and reinterprets(args):
        return "view (to another dtype)"
    if name in FAMILY_OPS and integer_family_op(args):
        return f"{name} (on integer tensors)"
    return None


def _adds_a_bias(args) -> bool:
    """One operand is shaped like a bias: at most one dimension longer than 1 ((C,), (1, C, 1, 1))."""
    return any(isinstance(a, torch.Tensor) and sum(1 for d in a.shape if d > 1) <= 1 for a in args[:2])


def bias_adds_only(allowed_ops: Iterable[str]) -> bool:
    """``add`` is allowed only as part of a linear or convolution family (their bias), not by name."""
    named = {str(n).rsplit(".", 1)[-1] for n in allowed_ops or ()}
    return "add" not in named and "add" in allowed_names(allowed_ops)


def allowed_names(allowed_ops: Iterable[str]) -> frozenset[str]:
    """Aten op names the task allows on top of `ALLOWED`."""
    out: set[str] = set(ALLOWED)
    for name in allowed_ops or ():
        short = str(name).rsplit(".", 1)[-1]
        out.add(short)
        out |= FAMILIES.get(short, frozenset())
    return frozenset(out)


class Guard:
    """The installed backstop; build with `install` before the candidate is imported."""

    __slots__ = ("_arm", "_check", "_clean", "_disarm", "_problems")

    def __init__(self, arm, disarm, problems, check, clean):
        self._arm, self._disarm, self._problems, self._check, self._clean = arm, disarm, problems, check, clean

    def clean(self) -> bool:
        """Nothing seen so far that `problems` would report (compute, read-outs, switches, spawns, odd launches)."""
        return self._clean()

    def check_output(self, out) -> None:
        self._check(out)

    def arm(self) -> None:
        self._arm()

    def disarm(self) -> None:
        self._disarm()

    def problems(self, rules: str = "leap", need_launch: bool = False, runs: int | None = None) -> list[str]:
        """What the backstop saw; ``runs`` is how many times the harness armed it (more arm or disarm calls
        than that were the candidate's: it reached the harness and switched the backstop off and on)."""
        return self._problems(rules, need_launch, runs)


def install(allowed_ops: Iterable[str], nonce: int, library_calls: Iterable[tuple] | None = None) -> Guard:
    """Push the recording mode (it stays on the dispatch stack until the child exits) and return its
    `Guard`. Everything it needs is bound here, in closure cells, before any candidate code runs.
    ``library_calls``: the reference's `LIBRARY_CALLS` in one forward as `library_signature`s (None: unknown,
    not limited)."""
    allowed = allowed_names(allowed_ops)
    bias_only = bias_adds_only(allowed_ops)
    budget = None if library_calls is None else collections.Counter(tuple(c) for c in library_calls)
    beyond_ = beyond
    calls: list = [collections.Counter(), []]  # allowed library calls in this run; calls beyond the reference's
    seen: dict[str, int] = {}
    made: set[int] = set()  # storages that ops returned while armed (outputs must be among them)
    unseen: list[str] = []
    # armed, Triton launches while armed, nonce probes seen, arm and disarm calls, launch depth, scalar reads in
    # this run, most scalar reads in a run
    state = [False, 0, 0, 0, 0, 0, 0, 0]
    noted: dict[str, int] = {}  # host read-outs while armed (`host_reads`)
    storage_of = host_reads.untyped_storage
    scalar_ops = host_reads.SCALAR_OPS
    stack = _get_current_dispatch_mode_stack
    mul = torch.ops.aten.mul.Tensor
    full = torch.full
    isinstance_, getattr_, str_ = isinstance, getattr, str

    def dispatch(self, func, types, args=(), kwargs=None):
        if state[0]:
            name = str_(getattr_(func, "overloadpacket", func).__name__)
            key = name if name not in allowed else misuse(name, args, kwargs, bias_only)
            if name in scalar_ops and not state[5]:
                state[6] += 1
            if key is not None:
                seen[key] = seen.get(key, 0) + 1
            elif name in LIBRARY_CALLS:
                calls[0][library_signature(name, args)] += 1
        elif func is mul and len(args) == 2 and isinstance_(args[1], torch.Tensor) and args[1].numel() == 1 \
                and float(args[1].item()) == float(nonce):
            state[2] += 1
        res = func(*args, **(kwargs or {}))
        if state[0]:
            for t in (res if isinstance_(res, tuple | list) else (res,)):
                if isinstance_(t, torch.Tensor):
                    made.add(storage_of(t).data_ptr())
        return res

    _Recorder = type("_Recorder", (TorchDispatchMode,), {"__torch_dispatch__": dispatch, "__slots__": ()})
    mode = _Recorder()
    mode.__enter__()
    odd_args: list[str] = []
    _count_triton_launches(state, odd_args)
    host_reads.watch(state, noted)
    uncompilable: list[str] = []  # kernels Triton's front end refuses (`triton_frontend`)
    triton_frontend.watch(uncompilable)
    profile = host_reads.profiler(state, noted)
    setprofile, getprofile = sys.setprofile, sys.getprofile
    switched: dict[str, int] = {}
    host_reads.note_module_functions(SWITCHES, state, switched)  # noted while armed, then done
    spawned: dict[str, int] = {}  # from here on, armed or not: a thread started at import computes in forward
    host_reads.note_module_functions(SPAWNS, [True, 0, 0, 0, 0, 0], spawned)
    cells = (id(seen), id(state), id(allowed), id(made), id(calls))

    def arm() -> None:
        made.clear()
        state[6] = 0
        calls[0] = collections.Counter()
        state[0] = True
        setprofile(profile)
        state[3] += 1

    def check_output(out) -> None:
        """Every output tensor's memory came from an op this mode saw during forward (work done with the
        mode switched off, or a tensor made elsewhere, shows as unseen)."""
        for t in (out if isinstance_(out, tuple | list) else (out,)):
            if isinstance_(t, torch.Tensor) and t.numel() and storage_of(t).data_ptr() not in made:
                unseen.append("an output tensor was not produced by any op the run-time backstop saw")

    def disarm() -> None:
        state[0] = False
        state[4] += 1
        if getprofile() is not profile:
            switched["sys.setprofile"] = 1
        setprofile(None)
        state[7] = max(state[7], state[6])
        if budget is not None and not calls[1]:
            calls[1] = beyond_(calls[0], budget)

    def problems(rules: str, need_launch: bool, runs: int | None) -> list[str]:
        state[0] = False
        out: list[str] = []
        if runs is not None and (state[3] != runs or state[4] > runs):
            out.append(f"the run-time compute backstop was switched off and on by the candidate (armed {state[3]} "
                       f"times, disarmed {state[4]}, for {runs} runs)")
        closure = dispatch.__closure__ or ()
        live = {id(c.cell_contents) for c in closure if triton_frontend.filled(c)}
        if not set(cells) <= live:
            out.append("the run-time compute backstop's state was replaced")
        if not any(m is mode for m in stack()):
            out.append("the run-time compute backstop was removed from the dispatch stack")
        before = state[2]
        mul(full((1,), 3.0), full((1,), float(nonce)))
        if state[2] != before + 1:
            out.append("the run-time compute backstop no longer sees PyTorch ops")
        out += unseen[:1]
        out += uncompilable[:1]
        out += host_reads.problems(noted, max(state[7], state[6]))
        if odd_args:
            out.append(odd_args[0] + " (a kernel takes tensors, numbers, dtypes and kernels)")
        if switched:
            out.append("the run-time compute backstop was switched off during forward (" +
                       ", ".join(sorted(switched)[:3]) + ")")
        if spawned:
            out.append("the solution started a thread or process (" + ", ".join(sorted(spawned)[:3]) + "): PyTorch "
                       "work there is out of the run-time backstop's sight")
        if need_launch and state[1] == 0:
            out.append("no Triton kernel ran during forward")
        extra = calls[1] or (beyond_(calls[0], budget) if budget is not None else [])
        if extra and rules != "kernelbench":
            what = "; ".join(f"{s[0]} {'x'.join(str(d) for d in s[1:])}" for s in extra)
            out.append(f"the solution called the task's allowed library ops ({', '.join(allowed_ops)}) beyond the "
                       f"reference's own calls ({what}): the extra ones compute what a kernel should")
        if seen and (rules != "kernelbench" or state[1] == 0):
            ops = ", ".join(f"{k} x{v}" for k, v in sorted(seen.items(), key=lambda kv: -kv[1])[:8])
            out.append(f"PyTorch compute ran in forward outside the task's allowed ops: {ops}")
        return out

    def clean() -> bool:
        return not (seen or unseen or uncompilable or noted or odd_args or switched or spawned)

    return Guard(arm, disarm, problems, check_output, clean)


def _count_triton_launches(state: list, odd_args: list) -> None:
    """Count Triton interpreter launches while armed (KernelBench rules: a custom kernel must run), and note
    arguments that are not what a kernel takes (the interpreter hands any Python object to the body, where a
    host function or object of the candidate's would run as plain Python: `kernel_argument_problem`)."""
    try:
        from triton.runtime.interpreter import GridExecutor
    except ImportError:  # pragma: no cover - no triton
        return
    original = GridExecutor.__call__
    setprofile, getprofile = sys.setprofile, sys.getprofile
    takes = kernel_argument_types()

    def call(self, *args, **kwargs):
        if state[0]:
            state[1] += 1
        for value in (*args, *kwargs.values()):
            why = kernel_argument_problem(value, takes)
            if why:
                odd_args.append(why)
        grid = getattr(self, "grid", None)
        if isinstance(grid, list):  # Triton's launcher takes any sequence; the interpreter pads a tuple
            self.grid = tuple(grid)
        elif callable(grid):  # the candidate's grid function runs inside the launch: watched as forward code
            self.grid = _outside_launch(grid, state, getprofile)
        hooks = getattr(self, "pre_run_hooks", None)
        if hooks:  # so do pre-run hooks (``kernel.add_pre_run_hook``)
            self.pre_run_hooks = [_outside_launch(h, state, getprofile) for h in hooks]
        state[5] += 1
        was = getprofile()  # the read-out watch is off inside a launch (the interpreter's own code)
        setprofile(None)
        try:
            return original(self, *args, **kwargs)
        finally:
            setprofile(was)
            state[5] -= 1

    GridExecutor.__call__ = call


def _outside_launch(fn, state: list, getprofile):
    """``fn`` (a grid function, called by the interpreter inside its launch) run with the launch depth and
    the read-out watch as outside a launch, on a copy of the launch's argument dict (the kernel then runs with
    the arguments that were checked); a list it returns becomes a tuple, as for a grid given directly."""
    watch = getprofile()

    def grid(*args, **kwargs):
        depth, was = state[5], getprofile()
        state[5] = 0
        sys.setprofile(watch)
        try:
            out = fn(*(dict(a) if isinstance(a, dict) else a for a in args), **kwargs)
            return tuple(out) if isinstance(out, list) else out
        finally:
            sys.setprofile(was)
            state[5] = depth

    return grid


def kernel_argument_types() -> frozenset[type]:
    """What a Triton kernel takes as an argument, as the exact types that exist when the harness installs the
    guard (before the candidate is imported, so no class of the candidate's is among them): numbers,
    strings, tensors, numpy scalars, Triton dtypes, constexprs, kernels and tensor descriptors, each with the
    subclasses its library defines (and None and tuples/lists of these, see `kernel_argument_problem`). An
    ``int`` subclass of the candidate's carrying ``data_ptr`` passed an ``isinstance`` test and ran its own
    methods inside the interpreter's launch (red-team pass 2026-12-05)."""
    import numpy as np
    import triton
    import triton.language as tl

    kernel = getattr(triton.runtime, "KernelInterface", None) or triton.runtime.jit.KernelInterface
    roots: list[type] = [torch.Tensor, np.generic, tl.dtype, tl.constexpr, kernel]
    try:
        from triton.tools.tensor_descriptor import TensorDescriptor
        roots.append(TensorDescriptor)
    except ImportError:  # pragma: no cover - an older Triton
        pass
    known: set[type] = {int, float, bool, complex, str}
    while roots:
        cls = roots.pop()
        if cls not in known:
            known.add(cls)
            roots.extend(type.__subclasses__(cls))
    return frozenset(known)


def kernel_argument_problem(value, takes: frozenset[type], depth: int = 0) -> str:
    """Empty when ``value`` is something a Triton kernel takes (``takes``, from `kernel_argument_types`), else
    what it is."""
    kind = type(value)
    if value is None or kind in takes:
        return ""
    if kind in (tuple, list) and depth < 3:
        return next((w for w in (kernel_argument_problem(v, takes, depth + 1) for v in value) if w), "")
    module, name = _TYPE_MODULE(kind), _TYPE_QUALNAME(kind)  # type's own getters: no metaclass of the candidate's
    return f"a kernel was launched with a {module}.{name} argument"


_TYPE_MODULE, _TYPE_QUALNAME = type.__dict__["__module__"].__get__, type.__dict__["__qualname__"].__get__


FEEDBACK = ("PyTorch computed (part of) the result at run time, or forward read tensor values out to numpy or "
            "Python: forward must compute with its own custom kernels (PyTorch only allocates, reshapes and "
            "copies), except the ops the task allows.")
