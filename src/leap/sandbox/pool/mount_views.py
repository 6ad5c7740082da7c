"""The candidate's view of the filesystem (isolation layer ``mounts``), standard library only.

In a private mount namespace: fresh tmpfs over /tmp, /var/tmp, /dev/shm and over the pool's scratch
root (other candidates' private dirs), the candidate's private dir and the writable keep-paths bound
back; then every other mount is re-mounted read-only (``MS_BIND|MS_REMOUNT|MS_RDONLY``, per mount
point, only in this namespace): the project's source tree, the Python environment, cgroupfs, /sys,
the judge's caches. /dev stays as it is (GPU device nodes are opened read-write); /proc is replaced by
the ``pid`` layer. Read-only binds hold against an unprivileged candidate; root could undo them, which
is why the uid drop is on by default.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path

CLONE_NEWNS = 0x00020000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 0x1, 0x2, 0x4, 0x8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 0x20, 0x400, 0x800, 0x1000
MS_REC, MS_PRIVATE, MS_RELATIME = 0x4000, 0x40000, 0x200000
MASKED_DIRS = ("/tmp", "/var/tmp", "/dev/shm")  # each gets a private tmpfs
_KEEP_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
               "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME}
_LEAVE_WRITABLE = ("/dev", "/proc")  # device nodes (CUDA opens them read-write); /proc: the pid layer's


_LIBC: list[ctypes.CDLL] = []


def libc() -> ctypes.CDLL:
    """The C library, loaded once (``find_library`` runs a subprocess: never per call)."""
    if not _LIBC:
        try:
            _LIBC.append(ctypes.CDLL("libc.so.6", use_errno=True))
        except OSError:
            _LIBC.append(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True))
    return _LIBC[0]


def unshare(flags: int) -> None:
    if hasattr(os, "unshare"):  # Python 3.12+
        os.unshare(flags)
        return
    if libc().unshare(ctypes.c_int(flags)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"unshare({flags:#x}): {os.strerror(err)}")


try:  # loaded at import (in the forkserver), so every candidate child has it already
    libc()
except OSError:  # pragma: no cover - no C library by that name: loaded on first use
    _LIBC.clear()


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    def enc(s: str | None) -> bytes | None:
        return s.encode() if s is not None else None

    if libc().mount(enc(src), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def mount_points() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of this namespace, in mount order (octal escapes decoded)."""
    out = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        f = line.split()
        mp = f[4].encode().decode("unicode_escape")
        out.append((mp, set(f[5].split(","))))
    return out


def private_views(priv: Path, keep_rw: tuple[str, ...], keep_ro: tuple[str, ...], tmpfs_bytes: int,
                  readonly: bool = True, opened: tuple[tuple[str, str], ...] = ()) -> str:
    """Set up the candidate's mount namespace (see the module docstring). Returns the layer's report.
    ``opened``: (closed dir, entry) pairs from `closed_ancestors`; each closed dir becomes a 0755 tmpfs
    holding only its entry, bound back read-only (root's 0700 home holding the Python environment)."""
    unshare(CLONE_NEWNS)
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    spriv = str(priv)
    masked = [d for d in MASKED_DIRS if os.path.isdir(d)]
    if not any(_under(spriv, d) for d in masked) and priv.parent != Path("/"):
        masked.append(str(priv.parent))  # the pool's scratch root: other candidates' private dirs
    closed = sorted({d for d, _ in opened if not any(_under(d, m) for m in masked)})
    keep_ro = (*keep_ro, *(e for d, e in opened if d in closed))
    masked += closed
    binds = sorted({(p, False) for p in keep_rw} | {(p, True) for p in keep_ro}, key=lambda x: x[0].count("/"))
    # bind sources opened before the tmpfs hides them (fds of this namespace's mounts)
    fds = [(spriv, False, os.open(spriv, os.O_RDONLY | os.O_DIRECTORY))]
    fds += [(p, ro, os.open(p, os.O_RDONLY | os.O_DIRECTORY)) for p, ro in binds
            if os.path.isdir(p) and any(_under(p, d) and p != d for d in masked)]
    writable = [spriv, *(p for p, ro in binds if not ro)]
    try:
        for d in masked:
            mode, size = ("0755", 1 << 20) if d in closed else ("1777", tmpfs_bytes)
            mount("tmpfs", d, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")
        for path, ro, fd in fds:
            if any(_under(path, d) for d in masked):
                os.makedirs(path, exist_ok=True)
                mount(f"/proc/self/fd/{fd}", path, None, MS_BIND)
                if ro:
                    mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY)
    finally:
        for _, _, fd in fds:
            os.close(fd)
    if not readonly:
        return "ok (private tmp only; the rest of the filesystem is writable)"
    for p in writable:  # own mounts, so the read-only pass below can leave them writable
        if os.path.isdir(p) and not any(_under(p, d) for d in masked):
            mount(p, p, None, MS_BIND | MS_REC)
    skip = [*writable, *masked]
    failed = []
    for mp, opts in mount_points():
        if any(mp == s for s in skip) or any(_under(mp, s) for s in _LEAVE_WRITABLE) or "ro" in opts:
            continue
        if any(_under(mp, s) for s in writable):
            continue
        flags = MS_BIND | MS_REMOUNT | MS_RDONLY
        for name, bit in _KEEP_FLAGS.items():
            if name in opts:
                flags |= bit
        try:
            mount(None, mp, None, flags)
        except OSError as exc:
            failed.append(f"{mp} ({exc.strerror})")
    if any(f.startswith("/ (") for f in failed):
        return "fallback: the root filesystem could not be made read-only: " + "; ".join(failed[:3])
    return "ok" if not failed else "ok (still writable: " + "; ".join(failed[:3]) + ")"


def closed_ancestors(paths: list[str], uid: int, gid: int) -> tuple[tuple[str, str], ...] | None:
    """For each path a dir on the way to it closes to ``uid``/``gid`` (no x for them), (that dir, the entry
    below it on the way): the mount view opens it (`private_views`' ``opened``). None when some path has
    two closed dirs on its way or a closed last component (not opened this way)."""
    out = set()
    for path in paths:
        parts = Path(path).resolve().parts
        shut = [i for i in range(1, len(parts)) if not _traversable(os.path.join(*parts[:i + 1]), uid, gid,
                                                                     last=i == len(parts) - 1)]
        if not shut:
            continue
        if len(shut) > 1 or shut[0] == len(parts) - 1:
            return None
        i = shut[0]
        out.add((os.path.join(*parts[:i + 1]), os.path.join(*parts[:i + 2])))
    return tuple(sorted(out))


def _traversable(path: str, uid: int, gid: int, last: bool) -> bool:
    """Mode bits only: x for ``uid``/``gid`` (r-x when ``last``)."""
    try:
        st = os.stat(path)
    except OSError:
        return False
    shift = 6 if st.st_uid == uid else 3 if st.st_gid == gid else 0
    need = 0o5 if last else 0o1
    return (st.st_mode >> shift) & need == need
