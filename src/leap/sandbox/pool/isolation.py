"""OS isolation for a candidate's process, applied in the child right after fork, before candidate code.

`enter_isolation(private_dir, limits)` applies these layers, each independently; a layer the machine
does not offer is skipped and reported (``report.layers[name] = "fallback: why"``), never fatal:

* ``environ``  — environment reduced to an allowlist (no tokens or keys); HOME/TMPDIR point into the
  private dir; the process's initial environment block (``/proc/self/environ``) is zeroed.
* ``network``  — a new network namespace (``unshare(CLONE_NEWNET)``; with ``CLONE_NEWUSER`` when not
  root): no interfaces but a downed loopback, so even 127.0.0.1 is unreachable.
* ``ipc``      — a new IPC namespace (``unshare(CLONE_NEWIPC)``): System V shared memory, semaphores and
  POSIX message queues of its own, gone with it (a red-team candidate left 256 MiB of SysV memory pinned
  on the host and messages for a later candidate).
* ``cgroup``   — its own cgroup (`leap.sandbox.pool.cgroup_limits`): ``pids.max`` (a fork-bomb cap that holds
  for root), a resident-memory cap, and a handle for the judge to kill every process it started.
* ``rlimits``  — host memory (RLIMIT_AS on CPU; RLIMIT_DATA on GPU, where CUDA needs a huge virtual
  address space), processes (RLIMIT_NPROC; only enforced for non-root), file size (RLIMIT_FSIZE;
  SIGXFSZ ignored so a write fails with EFBIG), open files, core dumps off.
* ``mounts``   — a private mount namespace (`leap.sandbox.pool.mount_views`): fresh tmpfs over /tmp, /var/tmp,
  /dev/shm and the pool's scratch root; everything but the private dir (and the writable keep-paths)
  read-only.
* ``pid``      — a PID namespace (the calling process stays outside as a waiter, the harness continues
  in the namespace): nothing the candidate starts outlives it; a fresh /proc shows only its processes.
* ``cwd_umask`` — cwd = private dir, umask 077.
* ``uid``      — drop to an unprivileged uid/gid (default 65534) with supplementary groups cleared,
  after chowning the private dir (and the writable keep-paths); then ``no_new_privs``. Not root:
  ``off`` (already unprivileged).

The module imports only the standard library (it runs in a fresh fork, before torch is touched by
the candidate). The threat model is in docs/THREAT_MODEL.md.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path

from leap.sandbox.pool.cgroup_limits import enter_cgroup
from leap.sandbox.pool.mount_views import (
    MASKED_DIRS,
    MS_NODEV,
    MS_NOEXEC,
    MS_NOSUID,
    closed_ancestors,
    libc,
    mount,
    private_views,
    unshare,
)

__all__ = ["MASKED_DIRS", "IsolationLimits", "IsolationReport", "enter_isolation", "probe_isolation"]
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
DEFAULT_UID = 65534  # "nobody"
GiB = 1 << 30

# Environment variables a candidate may see (exact names, then prefixes).
ENV_KEEP = frozenset({"PATH", "LANG", "LC_ALL", "LANGUAGE", "TERM", "TZ", "PYTHONHASHSEED", "PYTHONPATH",
                      "LD_LIBRARY_PATH", "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES",
                      "CUDA_DEVICE_ORDER", "CUDA_MODULE_LOADING", "TORCH_CUDA_ARCH_LIST",
                      "TORCH_EXTENSIONS_DIR", "TRITON_INTERPRET", "TRITON_CACHE_DIR", "TRITON_HOME",
                      "CUPY_CACHE_DIR", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                      "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES", "CC", "CXX", "MAX_JOBS"})
ENV_KEEP_PREFIXES = ("LC_", "LEAP_SANDBOX_")
# The forkserver's environment and a fresh child's before its job (exact names): `worker_env`.
WORKER_ENV_KEEP = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "CUDA_HOME", "CUDA_PATH", "LD_LIBRARY_PATH",
                   "PYTHONPATH", "VIRTUAL_ENV", "CUDA_VISIBLE_DEVICES", "TORCH_CUDA_ARCH_LIST",
                   "TRITON_INTERPRET", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH", "OMP_NUM_THREADS")
# Set in the forkserver's environment, so libraries it preloads fix their caches at import to paths in
# /tmp: a fresh tmpfs per candidate, where the child re-creates them (`ensure_cache_dirs`), never shared.
PRELOAD_CACHE_ENV = {"CUPY_CACHE_DIR": "/tmp/leap-preload/cupy"}
CACHE_ENV = ("CUPY_CACHE_DIR", "TRITON_CACHE_DIR", "TORCH_EXTENSIONS_DIR", "TMPDIR")
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
    readonly_root: bool = True  # layer mounts: everything but the private dir and keep_paths read-only
    pid_namespace: bool = True
    ipc_namespace: bool = True  # own System V IPC / POSIX message queues: nothing left for later candidates
    uid_needs_readable_env: bool = True  # uid layer: stay root where the uid could not import torch & co
    cgroup: bool = True  # own cgroup: pids.max = nproc (holds for root) and a resident-memory cap
    tmpfs_bytes: int = 1 * GiB
    drop_uid: int | None = DEFAULT_UID  # when root; None keeps the current user
    drop_gid: int | None = None  # defaults to drop_uid
    keep_paths: tuple[str, ...] = ()  # dirs left writable (e.g. the extension build cache)
    keep_ro_paths: tuple[str, ...] = ()  # dirs under /tmp, /var/tmp, /dev/shm bound back read-only (a venv)
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
    _layer(rep, "ipc", lambda: unshare(CLONE_NEWIPC) or "ok" if limits.ipc_namespace else "off")
    _layer(rep, "cgroup", lambda: enter_cgroup(limits.nproc, limits.memory_bytes) if limits.cgroup else "off")
    # with its own cgroup's pids.max a candidate needs no RLIMIT_NPROC, which counts per uid: every candidate
    # runs as the same uid, so one holding 511 threads starved its neighbours' thread pools (2026-12-05)
    _layer(rep, "rlimits", lambda: _set_rlimits(limits, nproc=rep.layers.get("cgroup") != "ok"))
    _layer(rep, "mounts", lambda: private_views(priv, limits.keep_paths, limits.keep_ro_paths, limits.tmpfs_bytes,
                                                limits.readonly_root, _to_open(limits))
           if limits.private_tmp else "off")
    proc_view = rep.layers.get("mounts", "").startswith("ok")
    _layer(rep, "pid", lambda: _new_pidns(proc_view) if limits.pid_namespace else "off")
    if rep.layers["pid"] != "ok":  # no waiter to take the candidate down with the judge: its own death signal
        libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if rep.layers["pid"] == "ok":  # /proc/self names our pid only when /proc is the namespace's own
        own = os.readlink("/proc/self") == str(os.getpid()) if os.path.islink("/proc/self") else False
        rep.layers["proc_view"] = "ok" if own else "fallback: /proc still shows the host's processes"
    _layer(rep, "cwd_umask", lambda: _cwd_umask(priv))
    _layer(rep, "uid", lambda: _drop_uid(priv, limits) if limits.drop_uid is not None else "off")
    if (rep.layers.get("uid") != "ok" and limits.nproc is not None and os.geteuid() == 0
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
def worker_env(base: dict[str, str] | None = None, home: str | None = None) -> dict[str, str]:
    """The environment of the forkserver and of a fresh child before its job (a whitelist: no tokens, keys
    or credentials survive); the child's isolation then narrows it to `ENV_KEEP` (`scrubbed_env`)."""
    src = os.environ if base is None else base
    env = {k: v for k, v in src.items() if k in WORKER_ENV_KEEP}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["HOME"] = home or tempfile.gettempdir()
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


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
def _new_netns() -> str:
    try:
        unshare(CLONE_NEWNET)
        return "ok"
    except OSError as exc:
        if os.geteuid() == 0:
            raise
        first = exc
    unshare(CLONE_NEWUSER | CLONE_NEWNET)  # rootless: a user namespace owns the new network namespace
    return f"ok (user namespace; plain unshare failed: {first.strerror})"


def _new_pidns(proc_view: bool) -> str:
    """A PID namespace for the candidate. The calling process stays outside as a *waiter*; its first child
    in the namespace is a minimal init (``sleep``, spawned without copying this process); the second, the
    harness, returns from here and runs the candidate. When the harness exits the waiter kills the init:
    the kernel then kills everything left in the namespace (setsid daemons, processes that moved to
    another cgroup) before the waiter mirrors the harness's exit status. In the harness a fresh /proc shows
    only the namespace's processes (the judge's /proc/<pid>/environ and /root are gone)."""
    unshare(CLONE_NEWPID)
    init = _spawn_init()
    harness = os.fork()
    if harness != 0:
        _end_with_parent(init, harness)
        _wait_and_mirror(harness, init)  # never returns
    libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # the waiter gone: so is the candidate
    if proc_view:  # needs the private mount namespace; `proc_view` in the report says whether it worked
        try:
            mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
        except OSError:
            pass
    return "ok"


def _end_with_parent(*pids: int) -> None:
    """In the waiter: when its parent (the forkserver, which ends with the judge) dies, take the namespace
    down with it: SIGKILL its init and the harness, then exit. Without this a candidate outlived a killed
    judge, busy past its own timeout (red-team pass 2026-12-05)."""
    parent = os.getppid()

    def down(*_):
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        os._exit(70)

    signal.signal(signal.SIGTERM, down)
    libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before the death signal was set
        down()


def _spawn_init() -> int:
    """The namespace's pid 1: ``sleep infinity`` (posix_spawn: no copy of this big process); a forked
    sleeper where there is no sleep binary."""
    for path in ("/bin/sleep", "/usr/bin/sleep"):
        if os.access(path, os.X_OK):
            return os.posix_spawn(path, ["sleep", "infinity"], {})
    pid = os.fork()
    if pid == 0:
        while True:
            signal.pause()
    return pid


def _wait_and_mirror(harness: int, init: int) -> None:
    status = 0
    try:
        _, status = os.waitpid(harness, 0)
    except ChildProcessError:
        status = 70 << 8
    finally:
        try:
            os.kill(init, signal.SIGKILL)
            os.waitpid(init, 0)  # returns once every process of the namespace is gone
        except (ProcessLookupError, ChildProcessError):
            pass
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError, RuntimeError):
            pass
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def kill_pid_namespace(worker_pid: int) -> int:
    """SIGKILL the children of a candidate's waiter process (the namespace's init and the harness): the
    kernel then kills the whole namespace. Call from the judge BEFORE killing the waiter (afterwards its
    children are reparented and no longer findable). Returns how many were signalled."""
    try:
        kids = Path(f"/proc/{worker_pid}/task/{worker_pid}/children").read_text().split()
    except OSError:
        return 0
    n = 0
    for k in kids:
        try:
            os.kill(int(k), signal.SIGKILL)
            n += 1
        except (ProcessLookupError, PermissionError, ValueError):
            continue
    return n


# --- limits, cwd, uid -------------------------------------------------------------------------------
def _set_rlimits(limits: IsolationLimits, nproc: bool = True) -> str:
    plan = [(resource.RLIMIT_CORE, 0)]
    if limits.memory_bytes is not None:
        kind = resource.RLIMIT_DATA if limits.memory_rlimit.upper() == "DATA" else resource.RLIMIT_AS
        plan.append((kind, limits.memory_bytes))
    for lim, val in ((resource.RLIMIT_NPROC, limits.nproc if nproc else None), (resource.RLIMIT_FSIZE, limits.fsize_bytes),
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
        return "off (not root: already unprivileged)"
    hidden = [p for p in _import_roots() if not _readable_by(p, uid, gid)] if limits.uid_needs_readable_env else []
    if hidden:  # the candidate could not import torch: stay root (the read-only views still apply)
        return f"fallback: the Python environment is not readable by uid {uid} ({hidden[0]})"
    for top in (priv, *limits.keep_paths):
        if not os.path.isdir(top) or (top != priv and os.stat(top).st_uid == uid):
            continue  # a shared cache is converted once, then everything in it is created as uid
        for root, dirs, files in os.walk(top):
            for name in [root, *(os.path.join(root, n) for n in dirs + files)]:
                os.chown(name, uid, gid, follow_symlinks=False)
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    os.environ.setdefault("USER", "leap-candidate")  # getpass.getuser() (torch caches) without a passwd entry
    os.environ.setdefault("LOGNAME", "leap-candidate")
    if libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        return "ok (no_new_privs unavailable)"
    return "ok"


def _to_open(limits: IsolationLimits) -> tuple[tuple[str, str], ...]:
    """Dirs closed to the uid on the way to the Python environment (root's 0700 home), for the mount view
    to open, so the uid drop need not fall back to root; none when the uid stays as it is."""
    if limits.drop_uid is None or os.geteuid() != 0 or not limits.uid_needs_readable_env:
        return ()
    uid = int(limits.drop_uid)
    gid = int(limits.drop_gid if limits.drop_gid is not None else uid)
    return closed_ancestors(_import_roots(), uid, gid) or ()


def _import_roots() -> list[str]:
    """Directories the candidate's process imports from: the interpreter's prefixes and the packages the
    harness preloads (torch, triton, numpy, leap)."""
    import leap

    roots = {sys.prefix, sys.base_prefix, os.path.dirname(os.path.abspath(leap.__file__))}
    for name in ("torch", "triton", "numpy"):
        mod = sys.modules.get(name)
        if getattr(mod, "__file__", None):
            roots.add(os.path.dirname(os.path.abspath(mod.__file__)))
    return sorted(r for r in roots if os.path.isdir(r))


def reachable_cache_dir(preferred: str, fallback_root: str, uid: int | None) -> str:
    """A shared cache dir (the cuda_inline build cache) that candidates running as ``uid`` can reach:
    ``preferred``, or ``<fallback_root>/leap-torch-ext-<uid>`` when a parent of it is closed to that uid
    (root's 0700 home holds ``~/.cache``). Created; the uid layer hands it to ``uid`` on first use."""
    os.makedirs(preferred, exist_ok=True)
    if uid is None or os.geteuid() != 0 or _readable_by(preferred, uid, uid):
        return preferred
    path = os.path.join(fallback_root, f"leap-torch-ext-{uid}")
    os.makedirs(path, exist_ok=True)
    return path


def preload_cache_dirs() -> list[str]:
    """Cache dirs that libraries the forkserver preloaded fixed at import (cupy's kernel cache, from the
    server's `PRELOAD_CACHE_ENV` or ``~``): under /tmp, which in a candidate's view is a fresh tmpfs."""
    dirs = list(PRELOAD_CACHE_ENV.values())
    for name, mod in list(sys.modules.items()):
        d = getattr(mod, "_default_cache_dir", None) if name.startswith("cupy") else None
        if isinstance(d, str):
            dirs.append(d)
    return sorted(set(dirs))


def ensure_cache_dirs() -> list[str]:
    """Create, inside the candidate's view and as its uid, the cache dirs its libraries write to: the job's
    (`CACHE_ENV` of the environment: under its private dir) and `preload_cache_dirs`. Returns those that
    could not be made."""
    failed = []
    for d in (*(os.environ[k] for k in CACHE_ENV if os.environ.get(k)), *preload_cache_dirs()):
        try:
            os.makedirs(d, exist_ok=True)
        except OSError as exc:
            failed.append(f"{d} ({exc.strerror})")
    return failed


def _readable_by(path: str, uid: int, gid: int) -> bool:
    """Whether ``uid``/``gid`` (no supplementary groups) can reach and list ``path`` (mode bits only)."""
    parts = Path(path).resolve().parts
    for i in range(1, len(parts) + 1):
        try:
            st = os.stat(os.path.join(*parts[:i]))
        except OSError:
            return False
        shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
        need = 0o5 if i == len(parts) else 0o1  # r-x on the dir itself, x on every parent
        if (st.st_mode >> shift) & need != need:
            return False
    return True


# --- probing -----------------------------------------------------------------------------------------
_PROBED: dict[str, IsolationReport] = {}


def probe_isolation(limits: IsolationLimits | None = None) -> IsolationReport:
    """Apply the layers in a throwaway forked child and report what works here (cached; warns once)."""
    key = repr(limits)
    if key in _PROBED:
        return _PROBED[key]
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
    _PROBED[key] = rep
    return rep


def probe_entry(conn, private_dir: str) -> None:
    """Forkserver child: apply the default layers and send back what each gave (JSON); then exit."""
    import json

    try:
        layers = enter_isolation(private_dir, IsolationLimits()).layers
    except BaseException as exc:  # noqa: BLE001 - the probe must always answer
        layers = {"probe": f"fallback: {exc.__class__.__name__}: {exc}"}
    try:
        conn.send_bytes(json.dumps(layers).encode())
    finally:
        os._exit(0)


_WARNED = False


def warn_once(layers: dict[str, str]) -> str | None:
    """One line on stderr, once per process, naming every layer this machine does not provide."""
    global _WARNED
    weak = IsolationReport(dict(layers)).fallbacks
    if not weak or _WARNED:
        return None
    _WARNED = True
    line = ("leap: sandbox isolation is weaker on this machine: "
            + "; ".join(f"{k} ({v.removeprefix('fallback: ')})" for k, v in weak.items())
            + " — see docs/THREAT_MODEL.md, `leap sandbox doctor`")
    print(line, file=sys.stderr, flush=True)
    return line
