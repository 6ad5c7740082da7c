"""The forkserver worker pool: pre-warmed, single-use candidate processes.

A forkserver with torch + triton (+ numpy) already imported forks each child in milliseconds. A child
starts its own session (``os.setsid``), scrubs its environment, moves into a private directory and waits
for ONE job; after the job it exits (recycled). The parent talks to it over a pipe with JSON messages
only (never unpickling what a child sends). A wall-clock timeout SIGKILLs the child's whole process
group; a crash (signal, ``os._exit``, OOM kill) or hang becomes a `ChildOutcome`, never a wedged pool.
"""

from __future__ import annotations

import functools
import io
import json
import multiprocessing as mp
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from multiprocessing import forkserver, popen_forkserver, reduction, spawn, util
from multiprocessing.context import set_spawning_popen
from pathlib import Path

from leap.sandbox.pool import isolation
from leap.sandbox.pool.cgroup_limits import kill_cgroup, oom_kills
from leap.sandbox.pool.isolation import kill_pid_namespace, worker_env
from leap.sandbox.pool.protocol import Job, clean_text, result_problem

PRELOAD = ["torch", "triton", "numpy", "leap.sandbox.pool.isolation", "leap.sandbox.worker.child"]  # + config.preload_extra (e.g. cupy)
_SERVER_LOCK = threading.RLock()
_SERVERS: dict[tuple, ScrubbedForkServer] = {}


class ScrubbedForkServer(forkserver.ForkServer):
    """A forkserver that every (re)start launches with the scrubbed environment and its Triton mode.

    multiprocessing restarts a dead server implicitly (``connect_to_new_process`` calls
    ``ensure_running``) with the judge's full environment and no ``TRITON_INTERPRET``: every later
    child would then carry the judge's secrets and the wrong Triton mode. Here each start, first or
    after a death, goes through `ensure_running` below; ``starts`` counts them.
    """

    def __init__(self, interpret: bool, preload: list[str]):
        super().__init__()
        self.interpret = interpret
        self.starts = 0
        self.set_forkserver_preload(preload)  # a missing module is skipped

    @property
    def pid(self) -> int | None:
        return self._forkserver_pid

    def ensure_running(self) -> None:
        with _SERVER_LOCK:
            if self._forkserver_pid is not None:
                with self._lock:
                    try:
                        pid, _ = os.waitpid(self._forkserver_pid, os.WNOHANG)
                    except ChildProcessError:
                        pid = self._forkserver_pid
                    if not pid:
                        return  # still alive
                    os.close(self._forkserver_alive_fd)  # dead: forget it, start a fresh one below
                    self._forkserver_address = self._forkserver_alive_fd = self._forkserver_pid = None
            saved = dict(os.environ)
            try:
                os.environ.clear()
                os.environ.update(worker_env(saved))
                os.environ.update(isolation.PRELOAD_CACHE_ENV)  # cupy & co fix their caches at import
                if self.interpret:
                    os.environ["TRITON_INTERPRET"] = "1"
                else:
                    os.environ.pop("TRITON_INTERPRET", None)
                super().ensure_running()
                self.starts += 1
            finally:
                os.environ.clear()
                os.environ.update(saved)


def _forkserver_for(interpret: bool, extra: tuple[str, ...] = ()) -> ScrubbedForkServer:
    """A running forkserver for this Triton mode. Triton decides interpreter-or-compiler when a
    ``@triton.jit`` function is defined, its own library functions included (at import, in the
    server), so each mode gets its own server. Started (and restarted) with a scrubbed environment,
    so no secret reaches any child's memory or ``/proc/self/environ``."""
    key = (interpret, tuple(extra))
    with _SERVER_LOCK:
        server = _SERVERS.get(key)
        if server is None:
            server = _SERVERS[key] = ScrubbedForkServer(interpret, [*PRELOAD[:-1], *extra, PRELOAD[-1]])
    server.ensure_running()  # starts it, or restarts it if it died
    return server


class _Popen(popen_forkserver.Popen):
    """The standard forkserver launch, through OUR server for the mode, and minus re-importing the
    parent's ``__main__`` in the child (a user's script, or a training loop without a main guard, must
    never run again in a candidate process)."""

    def __init__(self, process_obj, server: ScrubbedForkServer):
        self._server = server
        super().__init__(process_obj)

    def _launch(self, process_obj):
        process_obj.__dict__.pop("_Popen", None)  # our launcher hook is not part of the pickled process
        prep = spawn.get_preparation_data(process_obj._name)
        prep.pop("init_main_from_name", None)
        prep.pop("init_main_from_path", None)
        buf = io.BytesIO()
        set_spawning_popen(self)
        try:
            reduction.dump(prep, buf)
            reduction.dump(process_obj, buf)
        finally:
            set_spawning_popen(None)
        self.sentinel, w = self._server.connect_to_new_process(self._fds)
        _parent_w = os.dup(w)
        self.finalizer = util.Finalize(self, util.close_fds, (_parent_w, self.sentinel))
        with open(w, "wb", closefd=True) as f:
            f.write(buf.getbuffer())
        self.pid = forkserver.read_signed(self.sentinel)


@dataclass
class ChildOutcome:
    """What came back from one child: its result message, or how it died."""

    result: dict | None = None
    timed_out: bool = False
    exitcode: int | None = None
    signal_name: str = ""
    seconds: float = 0.0
    private_dir: str = ""
    events: list[dict] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)  # the pool's own share: inputs handed over, child's exit
    server_died: bool = False  # the forkserver died while this child ran (its exit status is then unknown)
    candidate_started: bool = False  # the child said it was importing the candidate (before any of its code)
    oom_kills: int | None = None  # processes its cgroup's memory cap killed (None: not known here)
    misbehaved: bool = False  # after candidate code ran, the child broke the result channel's protocol

    @property
    def crashed(self) -> bool:
        return self.result is None and not self.timed_out


@dataclass
class _Warm:
    proc: mp.process.BaseProcess
    conn: object
    private_dir: str
    server_pid: int | None = None  # the forkserver that forked it


MessageHandler = Callable[[dict], dict | None]


class WorkerPool:
    """Pre-forked, single-use children from a forkserver. Thread-safe: one thread per running job."""

    def __init__(self, scratch_dir: str | Path, prewarm: int = 2, keep_dirs: bool = False,
                 interpret: bool = False, preload_extra: tuple[str, ...] = ()):
        self._ctx = mp.get_context("forkserver")
        base = Path(scratch_dir)
        base.mkdir(parents=True, exist_ok=True)
        _remove_stale_roots(base)
        self._scratch = Path(tempfile.mkdtemp(prefix=f"leap-pool-{os.getpid()}-", dir=base))
        os.chmod(self._scratch, 0o711)  # traversable by a dropped uid (isolation), not listable
        self._prewarm = max(0, prewarm)
        self._keep = keep_dirs
        self._idle: list[_Warm] = []
        self._lock = threading.Lock()
        self._closed = False
        self._live: set[int] = set()
        self._server = _forkserver_for(interpret, tuple(preload_extra))
        self.isolation_layers = self.probe_isolation()
        isolation.warn_once(self.isolation_layers)
        self._refill()

    def probe_isolation(self) -> dict[str, str]:
        """What each isolation layer gives on this machine, from one child of this pool's forkserver."""
        private = tempfile.mkdtemp(prefix="leap-probe-", dir=self._scratch)
        parent_conn, child_conn = self._ctx.Pipe(duplex=False)
        proc = self._ctx.Process(target=isolation.probe_entry, args=(child_conn, private), daemon=True)
        proc._Popen = functools.partial(_Popen, server=self._server)
        try:
            proc.start()
            child_conn.close()
            ok = parent_conn.poll(60)
            return json.loads(parent_conn.recv_bytes().decode()) if ok else {"probe": "fallback: no answer"}
        except (EOFError, OSError, ValueError) as exc:
            return {"probe": f"fallback: {exc.__class__.__name__}: {exc}"}
        finally:
            _kill_group(proc)
            proc.join(5)
            parent_conn.close()
            _remove(private)

    # -- children -------------------------------------------------------------------------------
    def _spawn(self) -> _Warm:
        """A new child; a dead forkserver is restarted (scrubbed, in its mode) and the fork tried again."""
        try:
            return self._spawn_once()
        except (OSError, EOFError):
            self._server.ensure_running()
            return self._spawn_once()

    def _spawn_once(self) -> _Warm:
        from leap.sandbox.worker.child import child_entry

        self._server.ensure_running()
        private = tempfile.mkdtemp(prefix="leap-cand-", dir=self._scratch)
        parent_conn, child_conn = self._ctx.Pipe(duplex=True)
        proc = self._ctx.Process(target=child_entry, args=(child_conn, private), daemon=True)
        proc._Popen = functools.partial(_Popen, server=self._server)  # removed again before pickling
        proc.start()
        child_conn.close()
        return _Warm(proc, parent_conn, private, self._server.pid)

    def _refill(self) -> None:
        while True:
            with self._lock:
                if self._closed or len(self._idle) >= self._prewarm:
                    return
            warm = self._spawn()
            with self._lock:
                if self._closed:
                    self._discard(warm)
                    return
                self._idle.append(warm)

    def _take(self) -> _Warm:
        with self._lock:
            warm = None
            while self._idle:
                cand = self._idle.pop(0)
                if cand.proc.is_alive():
                    warm = cand
                    break
                self._discard(cand)
        if warm is None:
            warm = self._spawn()
        threading.Thread(target=self._refill, daemon=True).start()
        return warm

    def _discard(self, warm: _Warm) -> None:
        _kill_group(warm.proc)
        try:
            warm.conn.close()
        except OSError:
            pass
        if not self._keep:
            _remove(warm.private_dir)

    # -- running a job --------------------------------------------------------------------------
    def run(self, job: Job | dict, timeout_s: float, on_message: MessageHandler | None = None,
            prepare: Callable[[str], dict] | None = None) -> ChildOutcome:
        """Run ``job`` (a `Job`, or its wire dict) in a fresh child; ``prepare(private_dir)`` may add fields (e.g. write
        input files into the child's private dir) before it is sent. ``on_message`` answers the child's
        requests (e.g. the GPU timing lock); time spent inside it does not count against the timeout."""
        t_take = time.monotonic()
        warm = self._take()
        with self._lock:
            self._live.add(warm.proc.pid)
        out = ChildOutcome(private_dir=warm.private_dir)
        watchdog: _Watchdog | None = None
        start = time.monotonic()
        out.phases["take"] = start - t_take
        try:
            job = job if isinstance(job, Job) else Job.from_wire(job)  # typed, frozen; a bad key is refused
            if prepare is not None:
                job = job.with_fields(**prepare(warm.private_dir))
                out.phases["prepare"] = time.monotonic() - start
            deadline = time.monotonic() + timeout_s
            watchdog = _Watchdog(warm.proc, deadline)  # a message that never completes ends at the deadline too
            warm.conn.send_bytes(json.dumps(job.to_wire()).encode())
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    out.timed_out = True
                    break
                if not warm.conn.poll(min(left, 0.5)):
                    if not _alive(warm.proc) and not warm.conn.poll(0):
                        break
                    continue
                try:
                    msg = json.loads(warm.conn.recv_bytes(maxlength=1 << 20).decode())
                except EOFError:
                    break
                except (OSError, ValueError, UnicodeDecodeError):  # oversized or not JSON
                    out.misbehaved = out.candidate_started
                    break
                if not isinstance(msg, dict):
                    out.misbehaved = out.candidate_started
                    break
                if msg.get("type") == "result":
                    out.result = _answer(msg, out.candidate_started)
                    break
                if msg.get("type") == "importing":
                    out.candidate_started = True
                    continue
                if len(out.events) >= MAX_EVENTS:  # a flood of requests: the judge's memory and replies bounded
                    out.misbehaved = out.candidate_started
                    break
                out.events.append(msg)
                if on_message is not None:
                    t0 = time.monotonic()
                    reply = on_message(msg)
                    deadline += time.monotonic() - t0
                    watchdog.deadline = deadline
                    if reply is not None:
                        warm.conn.send_bytes(json.dumps(reply).encode())
        except (BrokenPipeError, ConnectionResetError, EOFError, OSError):
            pass
        finally:
            if watchdog is not None:
                watchdog.stop()
                out.timed_out = out.timed_out or watchdog.fired
            t_exit = time.monotonic()
            if out.result is not None:
                warm.proc.join(2.0)
            _kill_group(warm.proc)
            warm.proc.join(5.0)
            out.phases["exit"] = time.monotonic() - t_exit
            out.exitcode = warm.proc.exitcode
            out.oom_kills = oom_kills(warm.proc.pid) if warm.proc.pid else None
            # exit status 255 is what multiprocessing reports when the forkserver's pipe closed (it died):
            # give a dying server a moment to show as gone
            out.server_died = _gone(warm.server_pid, 1.0 if out.result is None and out.exitcode == 255 else 0.0)
            if out.exitcode is not None and out.exitcode < 0:
                try:
                    out.signal_name = signal.Signals(-out.exitcode).name
                except ValueError:
                    out.signal_name = f"signal {-out.exitcode}"
            out.seconds = time.monotonic() - start
            try:
                warm.conn.close()
            except OSError:
                pass
            with self._lock:
                self._live.discard(warm.proc.pid)
        return out

    def release_dir(self, private_dir: str) -> None:
        """Remove a finished child's private directory (after the judge read its outputs)."""
        if not self._keep and private_dir:
            _remove(private_dir)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for warm in idle:
            self._discard(warm)
        if not self._keep and not self._live:
            _remove(self._scratch)


def _remove_stale_roots(base: Path) -> None:
    """Remove pool directories left behind by processes that no longer exist."""
    for d in base.glob("leap-pool-*-*"):
        try:
            pid = int(d.name.split("-")[2])
            os.kill(pid, 0)
        except ProcessLookupError:
            _remove(d)
        except (ValueError, IndexError, PermissionError, OSError):
            continue


def _answer(msg: dict, candidate_started: bool) -> dict:
    """The child's result as the judge takes it: once candidate code ran, a claimed harness fault or a
    malformed answer (`protocol.result_problem`) is the candidate's failure, never a judge-side one."""
    msg = clean_text(msg)
    why = result_problem(msg)
    if why is not None:
        msg = {"type": "result", "ok": False, "stage": "after_candidate" if candidate_started else "harness",
               "error": {"kind": "ProtocolError", "message": f"malformed result from the child ({why})",
                         "traceback": ""}}
    elif candidate_started and msg.get("stage") == "harness":
        msg["stage"] = "after_candidate"
    return msg


def _alive(proc) -> bool:
    """Is the child running? Its forkserver reports the exit; when the forkserver itself died (its pipe
    closed, multiprocessing then says exit code 255) the child may live on: ask /proc."""
    return proc.is_alive() or _pid_running(proc.pid)


def _gone(pid: int | None, wait_s: float) -> bool:
    """Has process ``pid`` ended (waiting up to ``wait_s`` for it to)?"""
    end = time.monotonic() + wait_s
    while _pid_running(pid):
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)
    return True


def _pid_running(pid: int | None) -> bool:
    """A process that exists and is not a zombie."""
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except (OSError, IndexError):
        return False


MAX_EVENTS = 1000  # requests one child may make (GPU lock requests and tensor hand-offs: a few per trial)
WATCHDOG_GRACE_S = 5.0


class _Watchdog:
    """Kills a child's group once its (movable) deadline has passed by `WATCHDOG_GRACE_S`: the judge's read
    loop checks the deadline between messages, but a child that sends half a message keeps ``recv_bytes``
    waiting for the rest (red-team pass 2026-12-05); the kill closes the pipe and the read ends."""

    def __init__(self, proc, deadline: float) -> None:
        self.proc, self.deadline, self.fired = proc, deadline, False
        self._stop = threading.Event()
        threading.Thread(target=self._watch, name="leap-child-watchdog", daemon=True).start()

    def _watch(self) -> None:
        while not self._stop.wait(min(1.0, max(0.05, self.deadline + WATCHDOG_GRACE_S - time.monotonic()))):
            if time.monotonic() > self.deadline + WATCHDOG_GRACE_S:
                self.fired = True
                _kill_group(self.proc)
                return

    def stop(self) -> None:
        self._stop.set()


def _kill_group(proc) -> None:
    """SIGKILL the child's whole process group (it called setsid, so its pgid is its pid), then everything
    left in its cgroup: a process the candidate started in a new session escapes the group, not the cgroup."""
    pid = proc.pid
    if pid is None:
        return
    kill_pid_namespace(pid)  # its PID namespace first: the waiter's children are findable only while it lives
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        kill_cgroup(pid)
    except OSError:  # no cgroup (isolation off or unavailable): the process group was all
        pass
    try:
        proc.kill()
    except (ProcessLookupError, AttributeError, ValueError):
        pass


def _remove(path) -> None:
    """Remove a candidate's tree whatever it holds: ``shutil.rmtree`` recurses per level and a 3,000-level
    chain raised RecursionError (which ``ignore_errors`` does not cover), replacing the verdict and leaving
    the tree to fail every later pool start (red-team pass 2026-12-05); ``rm -rf`` walks it iteratively."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except RecursionError:
        pass
    if os.path.lexists(path):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], capture_output=True, check=False)
