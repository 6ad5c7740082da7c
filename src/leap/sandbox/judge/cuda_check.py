"""CUDA candidates without a GPU: a compile check with nvcc on the kernel source, else "needs a GPU".

The CUDA text is read statically from the candidate's AST (string constants passed to ``load_inline``'s
``cuda_sources`` or containing ``__global__``), so no candidate Python runs for this. nvcc runs in the judge,
outside the sandbox: a unit whose include directives could read a file outside the include directories is
refused before it runs (`gate/cpp_includes`), and nvcc gets no stdin and the scrubbed environment. Results are
cached by content hash in ``<cache_dir>/nvcc_check``.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
import time

from leap.sandbox.gate.cpp_includes import include_problem
from leap.sandbox.judge import judge_shim as J
from leap.sandbox.judge import verdicts
from leap.sandbox.judge.verdict import Verdict
from leap.sandbox.pool.isolation import worker_env

CHECK_VERSION = 4  # bump when the check itself changes (cache key)
NEEDS_GPU = ("Running and timing this {backend} solution needs a CUDA GPU; none is available here, so only "
             "a compile check was done{what}.")


def _strings(tree: ast.Module) -> tuple[dict[str, str], list[str]]:
    """Module-level ``NAME = "..."`` strings, and every string constant in the file."""
    named: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    named[t.id] = node.value.value
    consts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
    return named, consts


def _resolve(node: ast.expr, named: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return named.get(node.id)
    if isinstance(node, ast.List | ast.Tuple):
        parts = [_resolve(e, named) for e in node.elts]
        return "\n".join(p for p in parts if p) or None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = _resolve(node.left, named), _resolve(node.right, named)
        return (a or "") + (b or "") if a or b else None
    return None


def cuda_sources(source: str, backend: str) -> list[str]:
    """The CUDA translation units to compile-check (may be empty when built dynamically)."""
    tree = ast.parse(source)
    named, consts = _strings(tree)
    units: list[str] = []
    if backend == "cuda_inline":
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "load_inline":
                for kw in node.keywords:
                    if kw.arg == "cuda_sources":
                        text = _resolve(kw.value, named)
                        if text:
                            units.append(text)
    if not units:
        units = [c for c in consts if "__global__" in c]
    return units


TORCH_HEADER_DIRS = ("c10/", "ATen/", "torch/", "caffe2/")


def torch_header_missing(log: str) -> bool:
    """nvcc stopped at a torch header that this install does not have (a CPU-only torch build ships no
    generated CUDA headers such as ``c10/cuda/impl/cuda_cmake_macros.h``), not at the candidate's code."""
    import torch

    cpu_torch = torch.version.cuda is None
    for m in re.finditer(r"^(\S+?):\d+(?::\d+)?: fatal error: (\S+?): No such file or directory", log, re.M):
        including, missing = m.group(1), m.group(2).strip("<>\"")
        if "/torch/include/" in including or (missing.startswith(TORCH_HEADER_DIRS)
                                              and (cpu_torch or including != "kernel.cu")):
            return True
    return False


# A CPU-only torch ships c10/cuda's headers but not the one its CUDA build generates at configure time, so
# every include of <c10/cuda/CUDAException.h> (KernelBench's fuse_gelu, tiled_matmul and flash_attn examples)
# stopped there. This is that generated header's whole content for a shared-library build; it is put on the
# include path after torch's own directories, so a CUDA build's real header always wins.
CMAKE_MACROS = ("c10/cuda/impl/cuda_cmake_macros.h",
                "#pragma once\n// stand-in for the header torch's CUDA build generates (compile check only)\n"
                "#define C10_CUDA_BUILD_SHARED_LIBS\n")


def torch_cpu_shim(cache_dir: str) -> str | None:
    """An include directory with the generated c10/cuda header a CPU-only torch lacks (None when torch has
    it, or is a CUDA build)."""
    import torch
    import torch.utils.cpp_extension as ce

    rel, text = CMAKE_MACROS
    if torch.version.cuda is not None or any(os.path.exists(os.path.join(p, rel)) for p in ce.include_paths()):
        return None
    root = os.path.join(cache_dir, "nvcc_check", "torch_cpu_shim")
    path = os.path.join(root, rel)
    if not os.path.exists(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return root


def nvcc_check(units: list[str], backend: str, cache_dir: str, timeout_s: float,
               arch: str = "sm_90") -> tuple[bool | None, str]:
    """Compile each unit with nvcc (object only). Returns (ok, compiler output); ok is None when nvcc did
    not finish in time (a slow or busy machine: no verdict on the source, and nothing cached)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        raise FileNotFoundError("nvcc")
    import torch.utils.cpp_extension as ce

    incs = [f"-I{p}" for p in ce.include_paths()] + [f"-I{sysconfig.get_paths()['include']}"]
    shim = torch_cpu_shim(cache_dir) if backend == "cuda_inline" else None
    if shim:
        incs.append(f"-I{shim}")
    key = hashlib.sha256(json.dumps([CHECK_VERSION, units, backend, arch, incs]).encode()).hexdigest()[:24]
    cache = os.path.join(cache_dir, "nvcc_check")
    os.makedirs(cache, exist_ok=True)
    hit = os.path.join(cache, key + ".json")
    if os.path.exists(hit):
        with open(hit) as f:
            rec = json.load(f)
        return bool(rec["ok"]), rec["log"]
    ok, log = True, ""
    with tempfile.TemporaryDirectory(prefix="leap-nvcc-") as d:
        for i, text in enumerate(units):
            src = os.path.join(d, f"k{i}.cu")
            with open(src, "w") as f:
                f.write(text if backend == "cuda_inline" else "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#line 1\n" + text)
            cmd = [nvcc, "-c", "-std=c++17", f"-arch={arch}", "-w", "-o", os.path.join(d, f"k{i}.o"), src]
            if backend == "cuda_inline":
                cmd[1:1] = incs + ["-DTORCH_EXTENSION_NAME=leap_check", "-DTORCH_API_INCLUDE_EXTENSION_H"]
            try:
                proc = subprocess.run(cmd, capture_output=True, encoding="utf-8", errors="replace", timeout=timeout_s,
                                      cwd=d, stdin=subprocess.DEVNULL, env=worker_env(home=d))
            except subprocess.TimeoutExpired:
                return None, f"nvcc did not finish within {timeout_s:.0f} s"
            if proc.returncode != 0:
                log = (proc.stdout + proc.stderr).replace(src, "kernel.cu")
                if torch_header_missing(log):  # this machine's torch, not the source: no verdict, not cached
                    return None, "torch here lacks its CUDA headers (a CPU-only build)"
                ok = False
                break
    with open(hit, "w") as f:
        json.dump({"ok": ok, "log": log}, f)
    return ok, log


def cpu_verdict(source: str, backend: str, base: dict, stages: dict, cfg) -> Verdict:
    """The verdict for a CUDA candidate on a machine without a GPU."""
    t0 = time.monotonic()
    try:
        units = cuda_sources(source, backend)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        units = []
    bad = next((p for p in map(include_problem, units) if p), None)
    if bad is not None:
        return verdicts.rejected(base, detail="cpp_forbidden", feedback=(
            "The CUDA source may include headers only by name (<name> or \"name\"); " + bad))
    if not units:
        return verdicts.needs_gpu(base, detail="needs_gpu",
                                  feedback=NEEDS_GPU.format(backend=backend, what=" (no static CUDA source to check)"))
    try:
        ok, log = nvcc_check(units, backend, str(cfg.cache_dir), cfg.compile_timeout_s)
    except FileNotFoundError:
        return verdicts.needs_gpu(base, detail="needs_gpu",
                                  feedback=NEEDS_GPU.format(backend=backend, what=" (nvcc not found: none)"))
    finally:
        stages["compile"] = time.monotonic() - t0
    if ok is None:  # the check ran out of time here; without a GPU nothing else can judge it
        return verdicts.needs_gpu(base, detail="needs_gpu",
                                  feedback=NEEDS_GPU.format(backend=backend, what=f" ({log}: no result)"))
    if not ok:
        return verdicts.compile_error(base, feedback="Compilation failed:\n" + J.trim_compiler_error(log),
                                      detail=log[-3000:])
    return verdicts.needs_gpu(base, compiled=True, detail="needs_gpu",
                              feedback=NEEDS_GPU.format(backend=backend, what=" (nvcc: compiled)"))
