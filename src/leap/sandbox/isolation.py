"""OS isolation for a candidate's process, applied in the child right after fork, before candidate code.

`enter_isolation(private_dir, limits)` applies these layers, each independently; a layer the machine
does not offer is skipped and reported (``report.layers[name] = "fallback: why"``), never fatal:

* ``environ``  — environment reduced to an allowlist (no tokens or keys); HOME/TMPDIR point into the
  private dir; the process's initial environment block (``/proc/self/environ``) is zeroed.
* ``network``  — a new network namespace (``unshare(CLONE_NEWNET)``; with ``CLONE_NEWUSER`` when not
  root): no interfaces but a downed loopback, so even 127.0.0.1 is unreachable.
* ``mounts``   — a private mount namespace with fresh tmpfs over /tmp, /var/tmp and /dev/shm, so
  scratch writes are private and vanish with the process (the private dir stays visible).
* ``cgroup``   — its own cgroup (`leap.sandbox.cgroup_limits`): ``pids.max`` (a fork-bomb cap that holds
  for root), a resident-memory cap, and a handle for the judge to kill every process it started.
* ``rlimits``  — host memory (RLIMIT_AS on CPU; RLIMIT_DATA on GPU, where CUDA needs a huge virtual
  address space), processes (RLIMIT_NPROC; only enforced for non-root), file size (RLIMIT_FSIZE;
  SIGXFSZ ignored so a write fails with EFBIG), open files, core dumps off.
* ``cwd_umask`` — cwd = private dir, umask 077.
* ``uid``      — optional drop to an unprivileged uid/gid (default 65534) with supplementary groups
  cleared, after chowning the private dir; then ``no_new_privs``.

The module imports only the standard library (it runs in a fresh fork, before torch is touched by
the candidate). The threat model is in docs/THREAT_MODEL.md.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import resource
import signal
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from leap.sandbox.cgroup_limits import enter_cgroup

CLONE_NEWNS = 0x00020000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_REC, MS_PRIVATE, MS_BIND = 0x4000, 0x40000, 0x1000
MS_REMOUNT, MS_RDONLY = 0x20, 0x1
MASKED_DIRS = ("/tmp", "/var/tmp", "/dev/shm")  # each gets a private tmpfs (layer `mounts`)
PR_SET_NO_NEW_PRIVS = 38
GiB = 1 << 30

# Environment variables a candidate may see (exact names, then prefixes).
ENV_KEEP = frozenset({"PATH", "LANG", "LC_ALL", "LANGUAGE", "TERM", "TZ", "PYTHONHASHSEED", "PYTHONPATH",
                      "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
                      "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING", "TORCH_CUDA_ARCH_LIST",
                      "TORCH_EXTENSIONS_DIR", "TRITON_INTERPRET", "TRITON_CACHE_DIR", "TRITON_HOME",
                      "CUPY_CACHE_DIR", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                      "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CC", "CXX", "MAX_JOBS"})
ENV_KEEP_PREFIXES = ("LC_", "LEAP_SANDBOX_")
_SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "API_KEY", "APIKEY", "PRIVATE")


@dataclass
class IsolationLimits:
    """What to apply; ``None`` skips a limit. Build with `for_device` for sensible defaults."""

    memory_bytes: int | None = 16 * GiB
    memory_rlimit: str = "AS"  # "AS" (CPU) or "DATA" (GPU: CUDA reserves terabytes of address space)
    nproc: int | None = 512
    fsize_bytes: int | None = 8 * GiB
    nofile: int | None = 4096
    cpu_seconds: int | None = None
    network: bool = True
    private_tmp: bool = True
    cgroup: bool = True  # own cgroup: pids.max = nproc (holds for root) and a resident-memory cap
    tmpfs_bytes: int = 1 * GiB
    drop_uid: int | None = None  # e.g. 65534 ("nobody"); None keeps the current user
    drop_gid: int | None = None  # defaults to drop_uid
    keep_paths: tuple[str, ...] = ()  # dirs under /tmp, /var/tmp, /dev/shm bound back writable (e.g. a build cache)
    keep_ro_paths: tuple[str, ...] = ()  # ... bound back read-only (the Python environment, if it lives there)
    env_keep: tuple[str, ...] = ()
    wipe_initial_environ: bool = True

    @classmethod
    def for_device(cls, device: str, **overrides) -> IsolationLimits:
        kind = "DATA" if device.startswith("cuda") else "AS"
        return cls(memory_rlimit=kind, **overrides)


@dataclass
class IsolationReport:
    """Per layer: "ok" or "fallback: <why>"; ``warnings`` lists the fallbacks in words."""

    layers: dict[str, str] = field(default_factory=dict)

    @property
    def fallbacks(self) -> dict[str, str]:
        return {k: v for k, v in self.layers.items() if v != "ok" and not v.startswith("off")}

    def summary(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.layers.items())


def enter_isolation(private_dir: str | os.PathLike, limits: IsolationLimits | None = None) -> IsolationReport:
    """Isolate the calling (freshly forked, single-threaded) process. Returns what was applied."""
    limits = limits or IsolationLimits()
    rep = IsolationReport()
    priv = Path(private_dir).resolve()
    priv.mkdir(parents=True, exist_ok=True, mode=0o700)
    _layer(rep, "environ", lambda: _scrub_environ(priv, limits))
    _layer(rep, "network", lambda: _new_netns() if limits.network else "off")
    _layer(rep, "mounts", lambda: _private_tmp(priv, limits) if limits.private_tmp else "off")
    _layer(rep, "cgroup", lambda: enter_cgroup(limits.nproc, limits.memory_bytes) if limits.cgroup else "off")
    _layer(rep, "rlimits", lambda: _set_rlimits(limits))
    _layer(rep, "cwd_umask", lambda: _cwd_umask(priv))
    _layer(rep, "uid", lambda: _drop_uid(priv, limits) if limits.drop_uid is not None else "off")
    if (limits.drop_uid is None and limits.nproc is not None and os.geteuid() == 0
            and rep.layers.get("cgroup") != "ok"):
        rep.layers["nproc"] = "fallback: RLIMIT_NPROC is not enforced for root (enable drop_uid or cgroups)"
    return rep


def _layer(rep: IsolationReport, name: str, fn) -> None:
    try:
        out = fn()
        rep.layers[name] = out if isinstance(out, str) else "ok"
    except (OSError, ValueError, AttributeError) as exc:
        rep.layers[name] = f"fallback: {exc.__class__.__name__}: {exc}"


# --- environment ---------------------------------------------------------------------------------
def scrubbed_env(env: dict[str, str], keep: tuple[str, ...] = ()) -> dict[str, str]:
    """The allowlisted part of ``env``; names that look like secrets are dropped even if allowlisted."""
    out = {}
    for k, v in env.items():
        allowed = k in ENV_KEEP or k in keep or k.startswith(ENV_KEEP_PREFIXES)
        if allowed and not any(w in k.upper() for w in _SECRET_WORDS):
            out[k] = v
    return out


def _scrub_environ(priv: Path, limits: IsolationLimits) -> str:
    keep = scrubbed_env(dict(os.environ), limits.env_keep)
    keep.update({"HOME": str(priv), "TMPDIR": str(priv), "TMP": str(priv), "TEMP": str(priv)})
    for k in list(os.environ):
        del os.environ[k]  # unsetenv in the C environment too
    for k, v in keep.items():
        os.environ[k] = v  # setenv copies: no pointer into the initial block survives
    tempfile.tempdir = None
    if limits.wipe_initial_environ:
        return _wipe_initial_environ_block()
    return "ok"


def _wipe_initial_environ_block() -> str:
    """Zero the memory /proc/self/environ shows (the environment the process was exec'd with)."""
    stat = Path("/proc/self/stat").read_text()
    fields = stat[stat.rindex(")") + 2:].split()
    # fields[0] is field 3 (state); env_start and env_end are fields 50 and 51
    start, end = int(fields[47]), int(fields[48])
    if not 0 < start < end or end - start > 1 << 24:
        return f"fallback: implausible environ block {start:#x}-{end:#x}"
    ctypes.memset(start, 0, end - start)
    return "ok"


# --- namespaces ------------------------------------------------------------------------------------
def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)


def _unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
        return
    if _libc().unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare({flags:#x}): {os.strerror(err)}")


def _new_netns() -> str:
    try:
        _unshare(CLONE_NEWNET)
        return "ok"
    except OSError as exc:
        if os.geteuid() == 0:
            raise
        first = exc
    _unshare(CLONE_NEWUSER | CLONE_NEWNET)  # rootless: a user namespace owns the new network namespace
    return f"ok (user namespace; plain unshare failed: {first.strerror})"


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    libc = _libc()

    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if libc.mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _private_tmp(priv: Path, limits: IsolationLimits) -> str:
    _unshare(CLONE_NEWNS)
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    masked = [d for d in MASKED_DIRS if os.path.isdir(d)]
    fd = os.open(priv, os.O_RDONLY | os.O_DIRECTORY)
    keep = []  # opened in the new namespace, before the tmpfs hides them: bind sources must be mounts of it
    for path, ro in sorted([*((p, True) for p in limits.keep_ro_paths), *((p, False) for p in limits.keep_paths)],
                           key=lambda x: x[0].count("/")):
        if any(path.startswith(d + "/") for d in masked) and os.path.isdir(path):
            keep.append((path, ro, os.open(path, os.O_RDONLY | os.O_DIRECTORY)))
    try:
        for d in masked:
            _mount("tmpfs", d, "tmpfs", 0, f"size={limits.tmpfs_bytes},mode=1777")
            if str(priv) == d or str(priv).startswith(d + "/"):  # keep the private dir reachable
                os.makedirs(priv, exist_ok=True)
                _mount(f"/proc/self/fd/{fd}", str(priv), None, MS_BIND)
        for path, ro, kfd in keep:
            os.makedirs(path, exist_ok=True)
            _mount(f"/proc/self/fd/{kfd}", path, None, MS_BIND)
            if ro:
                _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
    finally:
        os.close(fd)
        for _, _, kfd in keep:
            os.close(kfd)
    return "ok" if masked else "fallback: no tmp dirs to cover"


# --- limits, cwd, uid -------------------------------------------------------------------------------
def _set_rlimits(limits: IsolationLimits) -> str:
    plan = [(resource.RLIMIT_CORE, 0)]
    if limits.memory_bytes is not None:
        kind = resource.RLIMIT_DATA if limits.memory_rlimit.upper() == "DATA" else resource.RLIMIT_AS
        plan.append((kind, limits.memory_bytes))
    for lim, val in ((resource.RLIMIT_NPROC, limits.nproc), (resource.RLIMIT_FSIZE, limits.fsize_bytes),
                     (resource.RLIMIT_NOFILE, limits.nofile), (resource.RLIMIT_CPU, limits.cpu_seconds)):
        if val is not None:
            plan.append((lim, val))
    skipped = []
    for lim, val in plan:
        soft, hard = resource.getrlimit(lim)
        new = val if hard == resource.RLIM_INFINITY else min(val, hard)
        try:
            resource.setrlimit(lim, (new, new))
        except (OSError, ValueError) as exc:
            skipped.append(f"{lim}: {exc}")
    if limits.fsize_bytes is not None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails with EFBIG instead
    return "ok" if not skipped else "fallback: " + "; ".join(skipped)


def _cwd_umask(priv: Path) -> str:
    os.chdir(priv)
    os.umask(0o077)
    return "ok"


def _drop_uid(priv: Path, limits: IsolationLimits) -> str:
    uid = int(limits.drop_uid)
    gid = int(limits.drop_gid if limits.drop_gid is not None else uid)
    if os.geteuid() != 0:
        return "fallback: not root, cannot change user"
    for root, dirs, files in os.walk(priv):
        for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
            os.chown(name, uid, gid, follow_symlinks=False)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    if _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "ok (no_new_privs unavailable)"
    return "ok"


# --- probing -----------------------------------------------------------------------------------------
_PROBED: IsolationReport | None = None


def probe_isolation(limits: IsolationLimits | None = None) -> IsolationReport:
    """Apply the layers in a throwaway forked child and report what works here (cached; warns once)."""
    global _PROBED
    if _PROBED is not None:
        return _PROBED
    import json

    r, w = os.pipe()
    with tempfile.TemporaryDirectory(prefix="leap-iso-probe-") as tmp:
        pid = os.fork()
        if pid == 0:  # child
            code = 0
            try:
                os.close(r)
                rep = enter_isolation(tmp, limits)
                os.write(w, json.dumps(rep.layers).encode())
            except BaseException:  # noqa: BLE001 - the probe child must always exit
                code = 1
            finally:
                os._exit(code)
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        os.waitpid(pid, 0)
    rep = IsolationReport(json.loads(data) if data else {"probe": "fallback: probe child failed"})
    if rep.fallbacks:
        warnings.warn("sandbox isolation layers unavailable here: "
                      + "; ".join(f"{k} ({v})" for k, v in rep.fallbacks.items()), stacklevel=2)
    _PROBED = rep
    return rep
