"""C++/CUDA source checks that need to know which code runs on the host (issue 12, host compute).

A CUDA extension's host code may allocate, check and launch; it must not compute on tensor data. Data
reaches the host through a copy (`static_gate_tables.CPP_HOST_DATA_PATTERNS`: ``.cpu()``, a device-to-host
``cudaMemcpy``, managed or pinned memory...) or arrives there already, as a CPU tensor handed in from
Python. This module finds the second kind: host code (everything outside ``__global__``/``__device__``
function bodies, ``__host__ __device__`` helpers included) that reads or writes through a tensor's data
pointer or any pointer to numbers it declares — subscripts, dereferences, casts then subscripts, or the
pointer handed to a ``std::``/C library routine. Kernel launches take pointers as arguments and are not
flagged; nor is a host wrapper that only hands its pointer parameters on to a launch.
"""

from __future__ import annotations

import re

DEVICE_FN = re.compile(r"__(?:global|device)__[^;{}]*?\{")
DATA_PTR = r"\.\s*(?:data_ptr|data|mutable_data_ptr|const_data_ptr)\s*(?:<[^<>()]*>)?\s*\(\s*\)"
POINTER_NAME = re.compile(r"(\w+)\s*(?:\[[^\]]*\])?\s*=\s*[^;=]*?" + DATA_PTR)
ELEMENT = (r"(?:float|double|half|__half|__nv_bfloat16|(?:at|c10)::(?:Half|BFloat16)|scalar_t|int|long|short|char|"
           r"bool|unsigned|u?int\d+_t|float\d+_t)")
TYPED_POINTER = re.compile(rf"\b{ELEMENT}\s*(?:const\s*)?\*+\s*(?:const\s+)?(?:__restrict__\s+)?(\w+)")
INLINE_ACCESS = re.compile(DATA_PTR + r"\s*\[|(?:^|[=(,;{}?:]|\breturn\b)\s*\*\s*\(?\s*[\w.]+\s*" + DATA_PTR
                           + r"|\*\s*>\s*\([^()]*\)\s*\[|\*\s*\)\s*[\w.]+(?:\([^()]*\))?\s*\)\s*\[", re.M)


def host_code(code: str) -> str:
    """``code`` with the bodies of ``__global__``/``__device__`` functions blanked (line breaks kept);
    a ``__host__ __device__`` function also runs on the host and stays."""
    out, i = [], 0
    for m in DEVICE_FN.finditer(code):
        if m.start() < i or "__host__" in code[max(0, m.start() - 40):m.end()]:
            continue
        start, depth, j = m.end() - 1, 0, m.end() - 1
        while j < len(code):
            depth += {"{": 1, "}": -1}.get(code[j], 0)
            if depth == 0:
                break
            j += 1
        out += [code[i:start], re.sub(r"[^\n]", " ", code[start:j + 1])]
        i = j + 1
    return "".join(out) + code[i:]


def host_data_access(code: str) -> re.Match | None:
    """The first place host code reads or writes tensor data through a data pointer, if any."""
    host = host_code(code)
    m = INLINE_ACCESS.search(host)
    if m:
        return m
    for name in dict.fromkeys(POINTER_NAME.findall(host) + TYPED_POINTER.findall(host)):
        n = re.escape(name)
        use = (rf"\b{n}\s*\[|(?:^|[=(,;{{}}?:]|\breturn\b)\s*\*\s*\(?\s*{n}\b|\b{n}\s*(?:\+\+|--)|(?:\+\+|--)\s*{n}\b"
               rf"|\bstd::[^;]*?\b{n}\b|\b(?:memcpy|memmove|memset|qsort|bsearch)\s*\([^;]*?\b{n}\b")
        m = re.search(use, host, re.M)
        if m:
            return m
    return None
