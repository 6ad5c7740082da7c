"""Which kernel backend a candidate's source uses (DESIGN.md §3): detected from the source, or named.

* ``triton`` — a ``@triton.jit`` (or ``@triton.autotune``/``@triton.heuristics``-wrapped) function;
* ``cuda_inline`` — ``torch.utils.cpp_extension.load_inline`` (KernelBench's format);
* ``cuda_nvrtc`` — ``__global__`` source compiled through NVRTC: cupy ``RawKernel``/``RawModule``,
  ``cuda.core`` ``Program``, or the ``nvrtc`` bindings.

Detection reads the AST (comments and docstrings never count); a source that does not parse falls back
to regular expressions over the code with comments removed.
"""

from __future__ import annotations

import ast
import re

BACKENDS: tuple[str, ...] = ("triton", "cuda_inline", "cuda_nvrtc")
# When a source uses several, the one that decides how it is built wins: an inline C++ extension needs
# the compile pool, NVRTC compiles at run time, Triton JITs.
PRIORITY: tuple[str, ...] = ("cuda_inline", "cuda_nvrtc", "triton")
HINT = ("a @triton.jit kernel, a torch.utils.cpp_extension.load_inline extension, or a __global__ kernel "
        "compiled through NVRTC (cupy RawKernel/RawModule or cuda.core Program)")

_TRITON_DECOS = {"jit", "autotune", "heuristics"}
_NVRTC_ATTRS = {"RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel"}
_REGEX = {
    "cuda_inline": re.compile(r"\bload_inline\s*\("),
    "cuda_nvrtc": re.compile(r"\b(RawKernel|RawModule)\s*\(|\bcuda\.core\b|\bnvrtc\b|\bProgram\s*\("),
    "triton": re.compile(r"@\s*triton\s*\.\s*(jit|autotune|heuristics)\b|@\s*jit\b"),
}


class BackendError(ValueError):
    """A backend that is unknown or does not match the source; the message is one line."""


def _dotted(node: ast.AST) -> str:
    """``a.b.c`` for a Name/Attribute chain (calls are looked through: ``triton.jit(...)`` -> ``triton.jit``)."""
    if isinstance(node, ast.Call):
        return _dotted(node.func)
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _from_ast(tree: ast.AST) -> set[str]:
    found: set[str] = set()
    modules = {"triton"}  # names bound to the triton module (`import triton as tr`)
    decos: set[str] = set()  # names bound to triton's jit & co. (`from triton import jit`)
    nodes = list(ast.walk(tree))
    imports = [n for n in nodes if isinstance(n, ast.Import | ast.ImportFrom)]
    for node in imports + [n for n in nodes if not isinstance(n, ast.Import | ast.ImportFrom)]:
        if isinstance(node, ast.ImportFrom) and node.module:
            mod = node.module
            if mod == "triton":
                decos |= {a.asname or a.name for a in node.names if a.name in _TRITON_DECOS}
            if mod.startswith("cuda.core") or mod.endswith("nvrtc") or (
                    mod in ("cuda", "cuda.bindings") and any(a.name in ("nvrtc", "core") for a in node.names)):
                found.add("cuda_nvrtc")
            if mod.startswith("torch.utils.cpp_extension") and any(a.name == "load_inline" for a in node.names):
                found.add("cuda_inline")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "triton" and a.asname:
                    modules.add(a.asname)
                if a.name.startswith("cuda.core") or a.name.endswith("nvrtc"):
                    found.add("cuda_nvrtc")
        elif isinstance(node, ast.FunctionDef):
            for deco in node.decorator_list:
                name = _dotted(deco)
                parts = name.split(".")
                if (parts[0] in modules and parts[-1] in _TRITON_DECOS) or name in decos:
                    found.add("triton")
        elif isinstance(node, ast.Call):
            name = _dotted(node.func)
            last = name.rsplit(".", 1)[-1]
            if last == "load_inline":
                found.add("cuda_inline")
            elif last in _NVRTC_ATTRS or name.endswith("core.Program") or (last == "Program" and "cuda" in name):
                found.add("cuda_nvrtc")
            elif name.split(".")[0] in modules and last == "jit":  # kern = triton.jit(fn)
                found.add("triton")
        # load_inline reached without a call of that name: getattr(cpp_extension, "load_inline"), partial(...)
        if (isinstance(node, ast.Attribute) and node.attr == "load_inline") or \
                (isinstance(node, ast.Name) and node.id == "load_inline") or \
                (isinstance(node, ast.Constant) and node.value == "load_inline"):
            found.add("cuda_inline")
    return found


def _strip_comments(source: str) -> str:
    return "\n".join(line.split("#", 1)[0] for line in source.splitlines())


def detect_backends(source: str) -> tuple[str, ...]:
    """Every backend the source uses, in `PRIORITY` order."""
    try:
        found = _from_ast(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # the gate says what is wrong with it
        code = _strip_comments(source)
        found = {name for name, rx in _REGEX.items() if rx.search(code)}
    return tuple(b for b in PRIORITY if b in found)


def detect_backend(source: str) -> str | None:
    """The candidate's backend from its source, or ``None`` when no custom-kernel backend is visible."""
    found = detect_backends(source)
    return found[0] if found else None


def resolve_backend(source: str, requested: str | None = "auto") -> str:
    """The backend to verify ``source`` with: ``requested`` unless ``auto``/``None``, then the detected one.

    Raises `BackendError` (one line) for an unknown name, a source with no recognisable kernel under
    ``auto``, or a named backend the source visibly does not use while it uses another one.
    """
    req = (requested or "auto").strip().lower()
    if req != "auto" and req not in BACKENDS:
        raise BackendError(f"unknown backend {requested!r} (expected auto, {', '.join(BACKENDS)})")
    found = detect_backends(source)
    if req == "auto":
        if not found:
            raise BackendError(f"no custom kernel found in the solution: expected {HINT}")
        return found[0]
    if found and req not in found:
        raise BackendError(f"backend {req} was requested but the solution uses {', '.join(found)}")
    return req
