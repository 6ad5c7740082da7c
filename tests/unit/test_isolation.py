"""Isolation layers proven from a real forked child: no network, no secrets, confined writes, limits."""

from __future__ import annotations

import errno
import json
import os
import resource
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from leap.sandbox.pool.isolation import IsolationLimits, enter_isolation, probe_isolation, scrubbed_env

ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not ROOT, reason="needs root (namespaces/uid drop as on the sandbox hosts)")


def run_isolated(probe, limits: IsolationLimits, private_dir: str) -> dict:
    """Fork; the child enters isolation, runs ``probe()`` and sends back its JSON result."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.close(r)
            rep = enter_isolation(private_dir, limits)
            out = {"layers": rep.layers, "result": probe()}
            os.write(w, json.dumps(out).encode())
        except BaseException as exc:  # the child must always leave through _exit
            os.write(w, json.dumps({"error": repr(exc)}).encode())
            code = 1
        finally:
            os._exit(code)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    out = json.loads(data)
    assert "error" not in out, out
    return out


@pytest.fixture
def private_dir():
    parent = tempfile.mkdtemp(prefix="leap-iso-test-")
    os.chmod(parent, 0o711)  # traversable by the dropped uid, not listable
    priv = os.path.join(parent, "priv")
    yield priv
    subprocess.run(["rm", "-rf", parent], check=False)


def _connect(port: int) -> str:
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        return "connected"
    except OSError as exc:
        return f"failed: {exc.__class__.__name__}"
    finally:
        s.close()


@needs_root
def test_no_network_in_isolation(private_dir):
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    port = srv.getsockname()[1]
    try:
        control = run_isolated(lambda: _connect(port), IsolationLimits(network=False, private_tmp=False), private_dir)
        assert control["result"] == "connected"  # the listener is reachable without the layer
        out = run_isolated(lambda: _connect(port), IsolationLimits(), private_dir)
        assert out["layers"]["network"] == "ok"
        assert out["result"].startswith("failed"), out
    finally:
        srv.close()


def test_no_planted_secret_in_environ(private_dir, monkeypatch):
    monkeypatch.setenv("LEAP_TEST_API_TOKEN", "s3cr3t-token")
    monkeypatch.setenv("HF_TOKEN", "hf_s3cr3t")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "aws-s3cr3t")
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    out = run_isolated(lambda: dict(os.environ), IsolationLimits(network=False, private_tmp=False), private_dir)
    env = out["result"]
    assert not any("s3cr3t" in v for v in env.values()), env
    assert env.get("TRITON_INTERPRET") == "1"
    assert env["HOME"] == str(Path(private_dir).resolve())
    assert scrubbed_env({"PATH": "/bin", "GITHUB_TOKEN": "x", "LEAP_SANDBOX_SECRET_KEY": "y"}) == {"PATH": "/bin"}


def test_initial_environ_block_wiped(private_dir):
    """/proc/self/environ shows the exec-time environment; isolation zeroes it."""
    code = ("import importlib.util, sys, os\n"
            "spec = importlib.util.spec_from_file_location('iso', sys.argv[1])\n"
            "iso = importlib.util.module_from_spec(spec); sys.modules['iso'] = iso; spec.loader.exec_module(iso)\n"
            "before = open('/proc/self/environ', 'rb').read()\n"
            "rep = iso.enter_isolation(sys.argv[2], iso.IsolationLimits(network=False, private_tmp=False, drop_uid=None))\n"
            "after = open('/proc/self/environ', 'rb').read()\n"
            "print(b'planted-s3cr3t' in before, b'planted-s3cr3t' in after, rep.layers['environ'])\n")
    iso_path = Path(__file__).resolve().parents[2] / "src/leap/sandbox/pool/isolation.py"
    env = {"PATH": os.environ["PATH"], "MY_DB_PASSWORD": "planted-s3cr3t",
           "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    res = subprocess.run([sys.executable, "-c", code, str(iso_path), private_dir], env=env, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "False", "ok"], res.stdout


def _write_probe(outside: str):
    def probe():
        res = {}
        for name, path in (("private", "ok.txt"), ("outside", os.path.join(outside, "leak.txt"))):
            try:
                Path(path).write_text("x")
                res[name] = "written"
            except OSError as exc:
                res[name] = f"failed: {errno.errorcode.get(exc.errno, exc.errno)}"
        res["cwd"] = os.getcwd()
        res["uid"] = os.getuid()
        res["umask"] = os.umask(0o077)
        return res
    return probe


@needs_root
def test_writes_confined_with_uid_drop(private_dir, tmp_path):
    outside = tmp_path / "judge_files"
    outside.mkdir(mode=0o755)
    os.chmod(tmp_path, 0o755)
    # the probe only needs what is already imported: the uid drop is tested even where uid 65534 could
    # not import torch (then the sandbox itself stays root: `uid: fallback`, tested below)
    limits = IsolationLimits(network=False, private_tmp=False, drop_uid=65534, uid_needs_readable_env=False)
    out = run_isolated(_write_probe(str(outside)), limits, private_dir)
    res = out["result"]
    assert out["layers"]["uid"].startswith("ok")
    assert res["private"] == "written" and res["outside"].startswith("failed"), res
    assert res["uid"] == 65534 and res["umask"] == 0o077
    assert res["cwd"] == str(Path(private_dir).resolve())
    assert (Path(private_dir) / "ok.txt").exists() and not (outside / "leak.txt").exists()


@needs_root
def test_private_tmp_hides_scratch_writes(private_dir):
    name = f"/tmp/leap-iso-scratch-{os.getpid()}-{time.time_ns()}"

    def probe():
        Path(name).write_text("scratch")
        Path("in_private.txt").write_text("kept")
        return Path(name).read_text()

    out = run_isolated(probe, IsolationLimits(network=False, private_tmp=True), private_dir)
    assert out["layers"]["mounts"] == "ok" and out["result"] == "scratch"
    assert not os.path.exists(name)  # the write went to the child's private tmpfs
    assert (Path(private_dir) / "in_private.txt").read_text() == "kept"  # the private dir stays shared


def test_rlimits_memory_and_file_size(private_dir):
    def probe():
        import resource

        res = {"core": resource.getrlimit(resource.RLIMIT_CORE)[0]}
        try:
            blob = bytearray(3 << 30)
            res["alloc"] = len(blob)
        except MemoryError:
            res["alloc"] = "MemoryError"
        try:
            with open("big.bin", "wb") as f:
                f.write(b"\0" * (2 << 20))
            res["fsize"] = "written"
        except OSError as exc:
            res["fsize"] = errno.errorcode.get(exc.errno, str(exc.errno))
        return res

    limits = IsolationLimits(network=False, private_tmp=False, memory_bytes=1 << 30, fsize_bytes=1 << 20)
    res = run_isolated(probe, limits, private_dir)["result"]
    assert res == {"core": 0, "alloc": "MemoryError", "fsize": "EFBIG"}


@needs_root
def test_nproc_limit_stops_fork_bomb(private_dir):
    uid = 61000 + os.getpid() % 3000  # an otherwise unused uid, so other processes do not count

    def probe():
        made = 0
        for _ in range(40):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(1.5)
                os._exit(0)
            made += 1
        return made

    limits = IsolationLimits(network=False, private_tmp=False, nproc=6, drop_uid=uid, cgroup=False,
                             uid_needs_readable_env=False)
    made = run_isolated(probe, limits, private_dir)["result"]
    assert 1 <= made < 6


def test_probe_reports_layers():
    rep = probe_isolation(IsolationLimits(network=True, private_tmp=False))
    assert {"environ", "network", "rlimits", "cwd_umask"} <= set(rep.layers)
    if ROOT:
        assert rep.layers["network"] == "ok"


cgroups_ok = pytest.mark.skipif(not (ROOT and (os.path.isdir("/sys/fs/cgroup/pids")
                                               or os.path.isfile("/sys/fs/cgroup/cgroup.controllers"))),
                                reason="needs root and a writable cgroup hierarchy")


@needs_root
@cgroups_ok
def test_cgroup_caps_fork_bomb_as_root(private_dir):
    def probe():
        made = 0
        for _ in range(40):
            try:
                pid = os.fork()
            except OSError:
                break
            if pid == 0:
                time.sleep(1.5)
                os._exit(0)
            made += 1
        return made

    out = run_isolated(probe, IsolationLimits(network=False, private_tmp=False, nproc=6), private_dir)
    assert out["layers"]["cgroup"] == "ok" and "nproc" not in out["layers"]
    assert 1 <= out["result"] < 6
    # the cgroup caps it: no per-uid RLIMIT_NPROC, which candidates sharing a uid would share
    lim = run_isolated(lambda: resource.getrlimit(resource.RLIMIT_NPROC)[0],
                       IsolationLimits(network=False, private_tmp=False, nproc=6), private_dir)["result"]
    assert lim != 6


@needs_root
@cgroups_ok
def test_cgroup_memory_cap_and_kill_all():
    from leap.sandbox.pool.cgroup_limits import cgroup_pids, enter_cgroup, kill_cgroup

    pid = os.fork()
    if pid == 0:  # resident memory beyond the cap: the kernel kills the process
        try:
            enter_cgroup(None, 256 << 20)
            blob = bytearray(800 << 20)  # zero-filled: every page is touched
            os._exit(3 if blob else 4)
        finally:
            os._exit(5)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == 9, status

    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # a grandchild escapes the process group with setsid; the cgroup still holds it
        try:
            enter_cgroup(64, None)
            if os.fork() == 0:
                os.setsid()
                time.sleep(60)
                os._exit(0)
            os.write(w, b"x")
            time.sleep(60)
        finally:
            os._exit(0)
    os.read(r, 1)
    assert len(cgroup_pids(pid)) == 2
    assert kill_cgroup(pid) == 2
    os.waitpid(pid, 0)
    deadline = time.time() + 5
    while cgroup_pids(pid) and time.time() < deadline:
        time.sleep(0.05)
    assert cgroup_pids(pid) == []


@needs_root
def test_kept_dirs_under_tmp_are_bound_back(private_dir):
    """A venv or checkout under /tmp stays importable (read-only), a build cache there stays writable, and
    everything else under /tmp is hidden."""
    ro, rw, hidden = (tempfile.mkdtemp(prefix=f"leap-iso-{k}-", dir="/tmp") for k in ("ro", "rw", "hidden"))
    for d in (ro, rw, hidden):
        Path(d, "f.txt").write_text(d)

    def probe():
        out = {"ro_read": Path(ro, "f.txt").read_text() == ro, "hidden": os.path.exists(Path(hidden, "f.txt"))}
        for name, d in (("ro_write", ro), ("rw_write", rw)):
            try:
                Path(d, "new.txt").write_text("x")
                out[name] = "ok"
            except OSError as exc:
                out[name] = exc.__class__.__name__
        return out

    try:
        limits = IsolationLimits(network=False, keep_ro_paths=(ro,), keep_paths=(rw,), drop_uid=None)
        out = run_isolated(probe, limits, private_dir)
    finally:
        for d in (ro, rw, hidden):
            subprocess.run(["rm", "-rf", d], check=False)
    assert out["layers"]["mounts"] == "ok"
    assert out["result"] == {"ro_read": True, "hidden": False, "ro_write": "OSError", "rw_write": "ok"}


@needs_root
def test_uid_drop_falls_back_when_the_uid_cannot_read_the_python_environment(private_dir, tmp_path):
    from leap.sandbox.pool import isolation as iso

    hidden = tmp_path / "locked"
    hidden.mkdir(mode=0o700)
    assert not iso._readable_by(str(hidden), 65534, 65534) and iso._readable_by("/usr", 65534, 65534)
    out = run_isolated(lambda: os.getuid(), IsolationLimits(network=False, private_tmp=False), private_dir)
    roots_ok = all(iso._readable_by(p, 65534, 65534) for p in iso._import_roots())
    assert out["layers"]["uid"] == "ok" if roots_ok else out["layers"]["uid"].startswith("fallback: the Python")
    assert out["result"] == (65534 if roots_ok else 0)


@needs_root
def test_pid_namespace_kills_a_setsid_grandchild_and_hides_other_processes(private_dir):
    def probe():
        r, w = os.pipe()
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.write(w, str(os.getpid()).encode())
                time.sleep(60)
            os._exit(0)
        inner = int(os.read(r, 32))
        return {"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), "daemon_inner": inner,
                "ppid_environ": os.path.exists(f"/proc/{os.getppid()}/environ")}

    before = set(os.listdir("/proc"))
    out = run_isolated(probe, IsolationLimits(network=False), private_dir)
    if out["layers"].get("pid") != "ok":
        pytest.skip(f"no PID namespace here: {out['layers'].get('pid')}")
    res = out["result"]
    assert out["layers"]["proc_view"] == "ok"
    assert max(res["pids"]) < 10 and 1 in res["pids"], res  # the namespace's own processes only
    assert not res["ppid_environ"]
    time.sleep(0.3)
    ours = Path("/proc/self/cmdline").read_bytes()
    left = []
    for p in set(os.listdir("/proc")) - before:
        try:  # forks of this test process (same argv) or the namespace's `sleep` init
            cmd = Path(f"/proc/{p}/cmdline").read_bytes()
            if p.isdigit() and (cmd == ours or cmd == b"sleep\0infinity\0"):
                left.append(p)
        except OSError:
            continue
    assert left == [], left  # neither the setsid daemon nor the namespace's init is left


@needs_root
def test_a_cache_under_a_closed_home_moves_where_the_candidate_uid_reaches_it(private_dir):
    from leap.sandbox.pool.isolation import _readable_by, reachable_cache_dir

    tmp_path = Path(private_dir).parent  # reachable by uid 65534 (0711 under /tmp)
    home = tmp_path / "root_home"
    home.mkdir(mode=0o700)  # like /root: ~/.cache/leap/torch_ext is closed to uid 65534
    scratch = tmp_path / "scratch"
    scratch.mkdir(mode=0o755)
    got = reachable_cache_dir(str(home / ".cache" / "torch_ext"), str(scratch), 65534)
    assert got == str(scratch / "leap-torch-ext-65534") and os.path.isdir(got)
    assert _readable_by(got, 65534, 65534) and not _readable_by(str(home / ".cache" / "torch_ext"), 65534, 65534)
    open_dir = tmp_path / "open" / "torch_ext"
    assert reachable_cache_dir(str(open_dir), str(scratch), 65534) == str(open_dir)
    assert reachable_cache_dir(str(home / "x"), str(scratch), None) == str(home / "x")  # no uid drop: as asked


@needs_root
def test_preloaded_library_caches_exist_in_the_candidates_fresh_tmp(private_dir):
    """cupy preloaded by the forkserver keeps its kernel cache under /tmp (PRELOAD_CACHE_ENV); the private
    tmpfs hides it until the child re-creates it, writable, as the candidate's uid."""
    from leap.sandbox.pool.isolation import PRELOAD_CACHE_ENV, ensure_cache_dirs

    cupy_dir = PRELOAD_CACHE_ENV["CUPY_CACHE_DIR"]
    os.makedirs(cupy_dir, exist_ok=True)  # what the forkserver's cupy import made on the host's /tmp

    def probe():
        before = os.path.isdir(cupy_dir)
        failed = ensure_cache_dirs()
        with tempfile.NamedTemporaryFile(dir=cupy_dir) as f:  # what cupy does when it saves a kernel
            f.write(b"cubin")
        return {"before": before, "failed": failed, "uid": os.getuid()}

    out = run_isolated(probe, IsolationLimits(network=False), private_dir)
    if not out["layers"]["mounts"].startswith("ok"):
        pytest.skip(f"no private mounts here: {out['layers']['mounts']}")
    assert out["result"]["before"] is False  # the fresh /tmp hides the forkserver's dir
    assert out["result"]["failed"] == []


def test_closed_ancestors_names_the_dir_to_open_and_the_entry_to_bind_back():
    from leap.sandbox.pool.mount_views import closed_ancestors

    top = Path(tempfile.mkdtemp(prefix="leap-closed-"))  # pytest's tmp_path sits under a 0700 dir itself
    home = top / "home"
    (home / "env" / "lib").mkdir(parents=True)
    os.chmod(top, 0o755)
    os.chmod(home, 0o700)
    os.chmod(home / "env", 0o755)
    os.chmod(home / "env" / "lib", 0o755)
    uid = 65534 if os.getuid() == 0 else os.getuid() + 1  # someone who is neither owner nor group
    assert closed_ancestors([str(home / "env" / "lib")], uid, uid) == ((str(home), str(home / "env")),)
    assert closed_ancestors(["/usr/lib"], uid, uid) == ()
    os.chmod(home / "env", 0o700)  # two closed dirs on the way: not opened this way
    assert closed_ancestors([str(home / "env" / "lib")], uid, uid) is None
    shutil.rmtree(top)


@needs_root
def test_uid_drop_opens_a_closed_home_holding_the_python_environment(private_dir):
    """Where the environment sits under a dir closed to the uid (root's 0700 home), the mount view opens that
    dir with only the environment's entry in it, so the candidate runs unprivileged instead of as root."""
    from leap.sandbox.pool import isolation as iso
    from leap.sandbox.pool.mount_views import closed_ancestors

    opened = closed_ancestors(iso._import_roots(), 65534, 65534)
    if not opened:
        pytest.skip(f"the Python environment is {'reachable' if opened == () else 'closed twice'} for uid 65534 here")

    def probe():
        return {"uid": os.getuid(), "listing": {d: sorted(os.listdir(d)) for d, _ in opened},
                "torch": __import__("torch").__version__}

    out = run_isolated(probe, IsolationLimits(network=False), private_dir)
    assert out["layers"]["uid"] == "ok", out["layers"]
    assert out["result"]["uid"] == 65534
    assert out["result"]["listing"] == {d: [os.path.basename(e)] for d, e in opened}


@needs_root
def test_system_v_shared_memory_dies_with_the_candidate(private_dir):
    """A SysV segment made in the candidate's IPC namespace is not in the host's (nothing pinned in host
    memory, nothing for a later candidate to read)."""
    import ctypes

    def probe():
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        shmid = libc.shmget(0x1EA9, 1 << 20, 0o1666)  # IPC_CREAT | 0666
        return {"shmid": shmid, "ns": os.readlink("/proc/self/ns/ipc")}

    out = run_isolated(probe, IsolationLimits(network=False), private_dir)
    assert out["layers"]["ipc"] == "ok", out["layers"]
    assert out["result"]["shmid"] >= 0 and out["result"]["ns"] != os.readlink("/proc/self/ns/ipc")
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    assert libc.shmget(0x1EA9, 0, 0) == -1  # no such key in the host's namespace
