"""Which files a C/C++/CUDA source may make the compiler read.

A candidate's CUDA source is compiled by nvcc: in the sandboxed child on a GPU machine, but on a machine
without a GPU by the judge itself (`judge/cuda_check`), whose compiler echoes included lines in its errors.
An include directive may therefore only name a header by a relative path inside the include directories:
never an absolute path (``/proc/self/environ``, ``/dev/stdin``, a root-only file), never ``..``, never a
macro (whose value could be either), and no ``#include_next``/``#import``/``#embed``. Directives are found
after line splices (backslash-newline), with the digraph ``%:`` read as ``#``, both with comments removed and
as written (a ``/*`` inside a string literal must not hide the line after it).
"""

from __future__ import annotations

import re

_DIRECTIVE = re.compile(r"^[ \t]*(?:#|%:)[ \t]*(include_next|include|import|embed)\b(.*)$", re.M)
# the header, then at most a comment (``#include <torch/extension.h>  // PyTorch``) and a carriage return
_HEADER = re.compile(r"[ \t]*(?:<([^<>\"\n]+)>|\"([^<>\"\n]+)\")[ \t\r]*(?://.*|/\*.*)?$")


def _views(text: str) -> tuple[str, str]:
    """``text`` with line splices joined: as written, and with comments blanked."""
    code = re.sub(r"\\[ \t]*\r?\n", "", text)
    return code, re.sub(r"//[^\n]*|/\*.*?\*/", " ", code, flags=re.S)


def include_problem(text: str) -> str | None:
    """The first include directive in ``text`` that could read a file outside the include directories,
    described in one line; None when there is none."""
    for m in (m for view in _views(text) for m in _DIRECTIVE.finditer(view)):
        what, rest = m.group(1), m.group(2)
        directive = f"#{what}{rest}".strip()[:120]
        if what != "include":
            return f"#{what} is not allowed (only #include of a header by name): {directive!r}"
        h = _HEADER.match(rest)
        if h is None:
            return f"#include must name a header as <name> or \"name\" (no macros): {directive!r}"
        path = h.group(1) or h.group(2)
        if path.startswith(("/", "~")) or "\\" in path or ".." in path.replace("\\", "/").split("/"):
            return f"#include of a path outside the include directories (absolute or with '..'): {directive!r}"
    return None
