"""Share of a forward call's GPU time spent in the candidate's own kernels (DESIGN.md §3 step 1).

Runs inside the candidate's child on a GPU. ``torch.profiler`` records every GPU kernel (and memcpy/
memset) of a few forward calls; a kernel counts as custom when its name is one of the kernels the
candidate's source defines (``@triton.jit`` functions, ``__global__`` functions), or, when no names can
be read from the source, when it does not look like a PyTorch/cuBLAS/cuDNN/CUTLASS library kernel.
Data movement (PyTorch's copies and fills, memcpy, memset) cannot compute an answer for a task that is not
itself data movement: up to ``COPY_ALLOWANCE`` times the custom kernels' own time it is neutral (a clone
before an in-place kernel, a copy into a preallocated buffer); beyond that it counts as outside time, so a
copy that does a transpose's whole work beside a decoy kernel is still caught; a copy that converts dtypes
never is data movement. The library kernels of a task's allowed ops (`ALLOWED_KERNELS`: GEMMs for
matmul/linear, convolutions for conv2d) are neutral: the task lets PyTorch run them.
Each activity counts at its shortest over the profiled calls (`per_call_minimum`): another process on the
GPU only lengthens what the profiler records. The verifier rejects a candidate below the configured share
(default 0.5).

The same profile counts the bytes copied from the device to the host per call (`host_copy_bytes`): a
forward that brings its data to the host computes there, however its native code hides it (the static
gate's C++ patterns are best effort); the verifier rejects more than ``SandboxConfig.max_host_copy_bytes``.
"""

from __future__ import annotations

import ast
import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import torch

_sync = torch.cuda.synchronize
_no_grad = torch.no_grad

GLOBAL_FN = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+)?(?:inline\s+)?"
                       r"void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)")
TRITON_DECOS = ("jit", "autotune", "heuristics")
LIBRARY = re.compile(
    r"(^|\W)(at::|at_cuda_detail|c10::|cub::|cutlass|cublas|cudnn|cunn_|nvjet|xmma|gemm|gemv|"
    r"splitKreduce|sm\d+_|ampere_|volta_|turing_|hopper_|elementwise_kernel|reduce_kernel|"
    r"softmax_warp|fused_dropout|indexSelect|CatArrayBatched|nchwToNhwc|nhwcToNchw|"
    r"triton_(poi|red|per|tem|for)_|flash_fwd|fmha|memcpy|memset|Memcpy|Memset|ncclDevKernel)",
)

COPY = re.compile(r"(direct_copy_kernel|copy_kernel|FillFunctor|fill_kernel|[Mm]emcpy|[Mm]emset)")
# A copy that converts dtypes computes (a truncation is a step function). PyTorch names it by its converting
# loader/storer (contiguous), by the casting `gpu_kernel_impl` path (strided; a same-dtype copy runs
# `gpu_kernel_impl_nocast`), or by the dedicated float16/bfloat16/float8 copy kernels; checked on the GPU
# (`tests/gpu/test_kernel_names_gpu.py`).
CAST = re.compile(r"WithCast|gpu_kernel_impl<|(?:b?float16|float8)\w*_copy_kernel")
COPY_ALLOWANCE = 2.0  # data movement up to this many times the custom kernels' time is neutral
DTOH = re.compile(r"Memcpy DtoH|Memcpy PtoH|Memcpy DtoA|Memcpy AtoH")  # copies to the host (`host_copy_bytes`)
# library kernels a task's allowed op (``Task.allowed_ops``) runs as: neutral, the task lets PyTorch do it
GEMM = r"gemm|gemv|nvjet|xmma|cutlass|cublas|splitKreduce|Kernel2\b"
ALLOWED_KERNELS = {"matmul": GEMM, "linear": GEMM,
                   "conv2d": GEMM + r"|conv|fprop|cudnn|cask|implicit|winograd|tensorTransform|nchwToNhwc|"
                                    r"nhwcToNchw|im2col"}

NAMESPACED = re.compile(r"(at::|c10::|cub::|cutlass|cublas|cudnn|nvjet|xmma|[Mm]emcpy|[Mm]emset)")


def kernel_names_from_source(source: str | None) -> set[str]:
    """Names of the kernels a candidate defines: ``@triton.jit`` (and autotune/heuristics-wrapped) Python
    functions and ``__global__`` functions in any CUDA source text (strings included)."""
    if not source:
        return set()
    names = set(GLOBAL_FN.findall(source))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return names | set(re.findall(r"@\s*(?:triton\s*\.\s*)?jit\b[^\n]*\n(?:\s*@[^\n]*\n)*\s*def\s+(\w+)", source))
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                target = deco.func if isinstance(deco, ast.Call) else deco
                last = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
                if last in TRITON_DECOS:
                    names.add(node.name)
    return names


def is_library_kernel(name: str) -> bool:
    """Whether a GPU kernel name looks like PyTorch's, cuBLAS's, cuDNN's, CUTLASS's, inductor's or a copy."""
    return bool(LIBRARY.search(name))


def matches_custom(name: str, custom: Iterable[str]) -> bool:
    """Whether kernel ``name`` (plain, demangled ``f(float*, int)`` or mangled ``_Z1fPfi``) is one of ``custom``.
    A library-namespaced kernel never is, whatever the candidate named its own kernels."""
    if NAMESPACED.search(name):
        return False
    for k in custom:
        if name == k or f"{len(k)}{k}" in name or re.search(rf"(^|[^\w]){re.escape(k)}($|[^\w])", name):
            return True
    return False


def allowed_kernels(allowed_ops: Iterable[str]) -> re.Pattern | None:
    """The library kernels of a task's allowed ops (None when it allows none this module knows)."""
    parts = [ALLOWED_KERNELS[k] for k in {str(op).rsplit(".", 1)[-1] for op in allowed_ops or ()}
             if k in ALLOWED_KERNELS]
    return re.compile("|".join(parts)) if parts else None


def fraction_from_kernels(kernels: Sequence[tuple[str, float]], custom_names: Iterable[str],
                          copy_allowance: float = COPY_ALLOWANCE, allowed_ops: Iterable[str] = ()) -> float:
    """Share of the GPU time spent in custom kernels (pure; ``kernels``: (name, microseconds)). Library
    data movement up to ``copy_allowance`` x the custom time, and the library kernels of the task's
    allowed ops, are left out of the total."""
    names = set(custom_names)
    allowed = allowed_kernels(allowed_ops)
    custom = copies = other = 0.0
    for n, us in kernels:
        us = max(0.0, us)
        if matches_custom(n, names) if names else not is_library_kernel(n):
            custom += us
        elif allowed is not None and allowed.search(n):
            continue
        elif COPY.search(n) and not CAST.search(n):
            copies += us
        else:
            other += us
    total = custom + other + max(0.0, copies - copy_allowance * custom)
    return custom / total if total > 0 else 0.0


def per_call_minimum(kernels: Sequence[tuple[str, float]], iters: int) -> list[tuple[str, float]]:
    """One call's activities, each at its shortest over ``iters`` calls that ran the same sequence (pure).
    Another process on the GPU only ever lengthens a kernel's recorded span (time-slicing), so the minimum is
    the quiet share; calls whose sequences differ are returned as they are (all calls, nothing dropped)."""
    n = len(kernels)
    if iters < 2 or n == 0 or n % iters:
        return list(kernels)
    k = n // iters
    calls = [kernels[i * k:(i + 1) * k] for i in range(iters)]
    if any([name for name, _ in c] != [name for name, _ in calls[0]] for c in calls[1:]):
        return list(kernels)
    return [(name, min(c[j][1] for c in calls)) for j, (name, _) in enumerate(calls[0])]


def profile_kernels(fn: Callable[..., Any], args: Sequence[Any], iters: int = 3) -> list[tuple[str, float]]:
    """(name, microseconds) of the GPU kernels/memcpys/memsets of a call of ``fn(*args)`` (`profile_forward`)."""
    return profile_forward(fn, args, iters)[0]


def profile_forward(fn: Callable[..., Any], args: Sequence[Any], iters: int = 3
                    ) -> tuple[list[tuple[str, float]], float | None, float | None]:
    """The GPU activities of a call of ``fn(*args)`` as (name, microseconds), each at its shortest over ``iters``
    calls (`per_call_minimum`), and per call the bytes copied device-to-host and the GPU's busy time over every stream (`busy_us`; None: the profiler's trace
    does not say)."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    iters = max(1, iters)
    with _no_grad():
        fn(*args)  # first-call compilation/autotuning stays out of the profile
        _sync()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(iters):
                fn(*args)
            _sync()
    spans = sorted((ev.time_range.start, ev.name, float(ev.time_range.elapsed_us())) for ev in prof.events()
                   if getattr(ev, "device_type", None) == DeviceType.CUDA)
    out = per_call_minimum([(name, us) for _, name, us in spans], iters)
    try:  # the copies' sizes are only in the exported trace (the events' own ``nbytes`` read 0 on torch 2.11)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                events = json.load(f).get("traceEvents", [])
    except Exception:  # noqa: BLE001 - no trace could be written or read: unknown, never a failure
        return out, None, None
    return out, host_copy_bytes(events) / iters, busy_us(events) / iters


GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")


def busy_us(trace_events: Iterable[Any]) -> float:
    """How long any of the trace's GPU activities ran, on any stream (the union of their ``[ts, ts + dur]``
    intervals, microseconds; pure). Recorded beside the event timing: work hidden on a side stream, e.g. under
    the L2 flush of the event samples, is busy time the measured stream's events do not span."""
    spans = sorted((float(ev["ts"]), float(ev["ts"]) + float(ev.get("dur", 0.0))) for ev in trace_events
                   if isinstance(ev, dict) and ev.get("cat") in GPU_CATS and isinstance(ev.get("ts"), (int, float)))
    total, end = 0.0, float("-inf")
    for a, b in spans:
        if b > end:
            total += b - max(a, end)
            end = b
    return total


def host_copy_bytes(trace_events: Iterable[Any]) -> int:
    """Bytes of the device-to-host copies in a Chrome trace's ``traceEvents`` (their ``args.bytes``; pure)."""
    total = 0
    for ev in trace_events:
        if isinstance(ev, dict) and DTOH.search(str(ev.get("name", ""))):
            args = ev.get("args")
            n = args.get("bytes", 0) if isinstance(args, dict) else 0
            total += int(n) if isinstance(n, (int, float)) and n > 0 else 0
    return total


def custom_kernel_fraction(fn: Callable[..., Any], args: Sequence[Any], source: str | None = None,
                           iters: int = 3) -> float:
    """Share (0..1) of ``fn(*args)``'s GPU time spent in custom kernels (names from ``source`` when given)."""
    return fraction_from_kernels(profile_kernels(fn, args, iters), kernel_names_from_source(source))


def forward_profile(fn: Callable[..., Any], args: Sequence[Any], source: str | None = None,
                    iters: int = 5, allowed_ops: Iterable[str] = ()) -> dict[str, float | None]:
    """``kernel_fraction``, and per call ``host_copy_bytes`` and ``gpu_busy_us`` (recorded, not decided on),
    of ``fn(*args)`` from one profile."""
    kernels, host_bytes, busy = profile_forward(fn, args, iters)
    return {"kernel_fraction": fraction_from_kernels(kernels, kernel_names_from_source(source),
                                                     allowed_ops=allowed_ops),
            "host_copy_bytes": host_bytes, "gpu_busy_us": busy}
