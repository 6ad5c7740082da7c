"""Per-candidate cgroups: a process-count cap that holds for root too, a resident-memory cap that does
not count CUDA's huge virtual reservations, and a way to kill every process a candidate started (even
ones that left its process group with ``setsid``).

Each candidate process moves itself into ``<cgroup root>/leap-sandbox/<pid>`` (v2) or
``/sys/fs/cgroup/{pids,memory}/leap-sandbox/<pid>`` (v1). Empty leftovers of finished candidates are
removed by later candidates. Standard library only.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

ROOT = Path("/sys/fs/cgroup")
GROUP = "leap-sandbox"


def _v2() -> bool:
    return (ROOT / "cgroup.controllers").is_file()


def _sweep(base: Path) -> None:
    """Remove empty per-candidate cgroups left by finished children."""
    try:
        entries = list(base.iterdir())
    except OSError:
        return
    for d in entries:
        if d.is_dir() and d.name.isdigit():
            try:
                if not (d / "cgroup.procs").read_text().strip():
                    d.rmdir()
            except OSError:
                continue


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def enter_cgroup(pids_max: int | None, memory_bytes: int | None) -> str:
    """Move this process into its own cgroup with the given caps. Returns "ok" or raises OSError."""
    pid = os.getpid()
    if _v2():
        base = ROOT / GROUP
        base.mkdir(exist_ok=True)
        try:
            _write(base / "cgroup.subtree_control", "+pids +memory")
        except OSError:
            pass  # controllers may already be on, or not delegable: the writes below tell
        _sweep(base)
        cg = base / str(pid)
        cg.mkdir(exist_ok=True)
        if pids_max is not None:
            _write(cg / "pids.max", str(pids_max))
        if memory_bytes is not None:
            _write(cg / "memory.max", str(memory_bytes))
            try:
                _write(cg / "memory.swap.max", "0")
            except OSError:
                pass
        _write(cg / "cgroup.procs", str(pid))
        return "ok"
    done = []
    for ctrl, files in (("pids", {"pids.max": pids_max}), ("memory", {"memory.limit_in_bytes": memory_bytes})):
        if all(v is None for v in files.values()):
            continue
        base = ROOT / ctrl / GROUP
        if not (ROOT / ctrl).is_dir():
            raise OSError(f"cgroup v1 controller {ctrl} not mounted")
        base.mkdir(exist_ok=True)
        _sweep(base)
        cg = base / str(pid)
        cg.mkdir(exist_ok=True)
        for name, value in files.items():
            if value is not None:
                _write(cg / name, str(value))
        _write(cg / "cgroup.procs", str(pid))
        done.append(ctrl)
    return "ok" if done else "off"


def cgroup_pids(child_pid: int) -> list[int]:
    """Every process still in the candidate's cgroup (started by ``child_pid``)."""
    paths = [ROOT / GROUP / str(child_pid)] if _v2() else [ROOT / c / GROUP / str(child_pid)
                                                           for c in ("pids", "memory")]
    out: set[int] = set()
    for p in paths:
        try:
            out.update(int(x) for x in (p / "cgroup.procs").read_text().split())
        except OSError:
            continue
    return sorted(out)


def oom_kills(child_pid: int) -> int | None:
    """How many of the candidate's processes its memory cap killed (the kernel's count in its cgroup), or
    None where the cgroup or the count is not there."""
    path = ROOT / GROUP / str(child_pid) / "memory.events" if _v2() else \
        ROOT / "memory" / GROUP / str(child_pid) / "memory.oom_control"
    try:
        for line in path.read_text().splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill":
                return int(value)
    except (OSError, ValueError):
        pass
    return None


def kill_cgroup(child_pid: int) -> int:
    """SIGKILL every process in the candidate's cgroup (call from the judge after a timeout). Returns
    how many were signalled; a missing cgroup is not an error."""
    killed: set[int] = set()
    for attempt in range(3):  # a fork racing the kill shows up on the next pass
        pids = [p for p in cgroup_pids(child_pid) if p not in killed]
        if not pids:
            break
        for p in pids:
            try:
                os.kill(p, signal.SIGKILL)
                killed.add(p)
            except ProcessLookupError:
                continue
        time.sleep(0.01 * (attempt + 1))
    return len(killed)


def sweep_cgroups() -> None:
    """Remove every empty per-candidate cgroup (e.g. when a pool closes)."""
    bases = [ROOT / GROUP] if _v2() else [ROOT / c / GROUP for c in ("pids", "memory")]
    for base in bases:
        _sweep(base)
