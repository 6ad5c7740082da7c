"""The candidate child's setting before any candidate code runs: environment variables and private cache
dirs, the Triton mode check, the isolation layers (with the Python environment kept visible), and the
``load_inline`` redirect into the content-hashed build cache. Used by `leap.sandbox.worker.child`."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import sys
import time

import torch

from leap.sandbox.pool.protocol import Job

_sha = hashlib.sha256
_dumps = json.dumps
_perf = time.perf_counter


def setup_env(job: Job, private_dir: str) -> None:
    for sub in ("triton", "torch_ext", "tmp", "cupy"):  # cupy's kernel cache must exist: it does not mkdir
        os.makedirs(os.path.join(private_dir, sub), exist_ok=True)
    os.environ["TRITON_CACHE_DIR"] = os.path.join(private_dir, "triton")
    os.environ["TORCH_EXTENSIONS_DIR"] = os.path.join(private_dir, "torch_ext")
    os.environ["TMPDIR"] = os.path.join(private_dir, "tmp")
    os.environ["CUPY_CACHE_DIR"] = os.path.join(private_dir, "cupy")
    if job.type == "compile":  # build only: no GPU; triton mode stays the server's
        os.environ["CUDA_VISIBLE_DEVICES"] = ""
        if job.max_jobs:  # share the host's cores between concurrent builds
            os.environ["MAX_JOBS"] = str(job.max_jobs)
    elif job.device == "cpu":
        os.environ["TRITON_INTERPRET"] = "1"
    else:
        os.environ.pop("TRITON_INTERPRET", None)
        if job.gpu_visible is not None:
            os.environ["CUDA_VISIBLE_DEVICES"] = str(job.gpu_visible)
    if job.arch_list:
        os.environ["TORCH_CUDA_ARCH_LIST"] = job.arch_list


def match_triton_mode() -> None:
    """Triton decides interpreter-or-compiler when a ``@triton.jit`` function is DEFINED, including
    its own library functions (``tl.sum``...) defined when the forkserver imported it, and cannot be
    re-imported in-process (its native module aborts). The scheduler sends each job to the server of
    its mode; a mismatch is a harness error, never a silently wrong run."""
    import triton.language as tl

    want = os.environ.get("TRITON_INTERPRET") == "1"
    have = type(tl.sum).__name__ == "InterpretedFunction"
    if want != have:
        raise RuntimeError(f"triton mode mismatch: job wants interpret={want}, forkserver has {have}")


def isolate(job: Job, private_dir: str) -> dict:
    if not job.isolation:
        return {"isolation": "off"}
    try:
        from leap.sandbox.pool import isolation
    except ImportError:
        return {"isolation": "fallback: leap.sandbox.pool.isolation not available"}
    kw = {k: getattr(job.limits, k) for k in ("memory_bytes", "drop_uid", "network", "cpu_seconds")
          if getattr(job.limits, k) is not None}
    # shared caches (e.g. the extension build cache) and the Python environment itself (a venv or checkout
    # under /tmp) would be hidden by the private tmp mounts: the isolation layer binds them back
    kw["keep_paths"] = tuple(p for p in job.keep_paths if os.path.isdir(p))
    kw["keep_ro_paths"] = tuple(_masked_env_paths(private_dir))
    limits = isolation.IsolationLimits.for_device(job.device or "cpu", **kw)
    layers = dict(isolation.enter_isolation(private_dir, limits).layers)
    failed = isolation.ensure_cache_dirs()  # fresh /tmp, dropped uid: the libraries' caches exist in the view
    if failed:
        layers["cache_dirs"] = "fallback: cannot create " + "; ".join(failed[:3])
    return layers


def _masked_env_paths(private_dir: str) -> list[str]:
    """Directories this interpreter imports from (prefix, sys.path, LEAP's own source) that lie under a
    masked dir, outermost only; none that holds the private dir (it has its own mount)."""
    import leap
    from leap.sandbox.pool.isolation import MASKED_DIRS

    here = os.path.dirname(os.path.dirname(os.path.abspath(leap.__file__)))  # LEAP's source root
    found = set()
    for p in {sys.prefix, sys.exec_prefix, sys.base_prefix, here, *sys.path}:
        if not p:
            continue
        real = os.path.realpath(p)
        if any(real.startswith(m + "/") for m in MASKED_DIRS) and os.path.isdir(real):
            found.add(real)
    priv = os.path.realpath(private_dir)
    outer = [p for p in found if not any(p.startswith(q + "/") for q in found if q != p)]
    return sorted(p for p in outer if not (priv == p or priv.startswith(p + "/")))


def ext_hash(kwargs: dict) -> str:
    """Content hash of a ``load_inline`` build: sources, flags, torch/CUDA versions, target arch."""
    keys = ("name", "cpp_sources", "cuda_sources", "functions", "extra_cflags", "extra_cuda_cflags",
            "extra_ldflags", "extra_include_paths", "with_cuda", "with_pytorch_error_handling")
    blob = {k: kwargs.get(k) for k in keys}
    blob["versions"] = [torch.__version__, torch.version.cuda, os.environ.get("TORCH_CUDA_ARCH_LIST", "")]
    return _sha(_dumps(blob, sort_keys=True, default=str).encode()).hexdigest()[:24]


def redirect_load_inline(cache: str, builds: list) -> None:
    """Make every ``load_inline`` build into ``cache/<content hash>`` so the compile pool's build is
    found by the GPU child (ninja sees nothing to do)."""
    import torch.utils.cpp_extension as ce

    original = ce.load_inline

    def load_inline(*args, **kwargs):
        names = ("name", "cpp_sources", "cuda_sources", "functions")
        kwargs.update(dict(zip(names, args, strict=False)))
        h = ext_hash(kwargs)
        build_dir = os.path.join(cache, h)
        os.makedirs(build_dir, exist_ok=True)
        kwargs["build_directory"] = build_dir
        kwargs["verbose"] = False
        t0 = _perf()
        try:
            mod = original(**kwargs)
        except BaseException as exc:
            builds.append({"hash": h, "ok": False, "seconds": _perf() - t0, "error": str(exc)[-6000:]})
            raise
        builds.append({"hash": h, "ok": True, "seconds": _perf() - t0})
        return mod

    ce.load_inline = load_inline


def close_inherited(keep: int) -> None:
    """Close every descriptor the forkserver handed down except stdio, the job channel and ``/dev/null`` (what
    multiprocessing left ``sys.stdin`` on: closed, its number could come back as another file): multiprocessing
    gives each child the server's alive pipe (a byte written there kills the server, every child of it then
    a "server death", not the candidate's fault) and the resource tracker's pipe (a registration there makes
    the judge's tracker, outside the sandbox, unlink a host shared-memory name at exit)."""
    from multiprocessing import forkserver, resource_tracker

    forkserver._forkserver._forkserver_alive_fd = None
    resource_tracker._resource_tracker._fd = None
    null = os.stat(os.devnull).st_rdev
    try:
        fds = [int(f) for f in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: every number up to the limit
        fds = list(range(3, os.sysconf("SC_OPEN_MAX")))
    for fd in fds:
        if fd <= 2 or fd == keep:
            continue
        try:
            st = os.fstat(fd)
        except OSError:
            continue  # listdir's own descriptor, gone
        if not (stat.S_ISCHR(st.st_mode) and st.st_rdev == null):
            os.close(fd)
