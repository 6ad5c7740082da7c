"""The harness that runs inside one candidate's child process.

Imported by the forkserver (preloaded), so everything it needs from torch, the timers and the file
helpers is bound here BEFORE any candidate code is imported; the candidate cannot swap them afterwards
for this harness. A job (JSON from the judge) says what to do:

* ``compile`` (cuda_inline, CPU pool): import the candidate with ``load_inline`` redirected to a
  content-hashed build directory, report whether the build succeeded; no GPU is touched.
* ``check``: build ``ModelNew(*init_inputs)`` under the judge's seed, and for each trial load the
  judge's input file, poison the allocator, run ``forward``, save outputs and post-call inputs
  (re-running some trials under a second poison); then, on a GPU, ask the judge for the timing lock
  and time the forward.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import sys
import time
import traceback
import types

import torch

from leap.sandbox.pool import cuda_ipc as _ipc
from leap.sandbox.pool.protocol import Job, thaw
from leap.sandbox.worker import child_timing
from leap.sandbox.worker import compute_guard as _guard
from leap.sandbox.worker import interpreter_bf16 as _bf16
from leap.sandbox.worker import interpreter_libdevice as _libdevice
from leap.sandbox.worker import interpreter_masks as _masks
from leap.sandbox.worker import interpreter_races as _races
from leap.sandbox.worker import interpreter_reduce as _reduce
from leap.sandbox.worker import interpreter_rewrite as _rewrite
from leap.sandbox.worker.child_env import (
    close_inherited,
    isolate,
    match_triton_mode,
    redirect_load_inline,
    setup_env,
)
from leap.sandbox.worker.compile_pass import compile_kernels as _compile_kernels
from leap.sandbox.worker.error_origin import raise_site
from leap.sandbox.worker.poison import poison as _poison

try:  # the hardening engineer's run-time detectors (bound at import, before any candidate code)
    from leap.sandbox.worker import detectors as _D
except ImportError:  # pragma: no cover - module not there: no run-time detectors
    _D = None

_save = torch.save
_load = torch.load
_perf = time.perf_counter
_dumps = json.dumps
_exit = os._exit
_getppid = os.getppid
_sha = hashlib.sha256
_empty = torch.empty
_sync = torch.cuda.synchronize
_equal = torch.equal
_to = torch.Tensor.to
_unlink = os.unlink
_statvfs = os.statvfs
_Tensor = torch.Tensor
_uint8 = torch.uint8
_ipc_receive = _ipc.receive
_Exported = _ipc.Exported


class CandidateError(Exception):
    """An error in the candidate, with the stage it happened in."""

    def __init__(self, stage: str, exc: BaseException, tb: str):
        super().__init__(str(exc))
        self.stage, self.exc, self.tb = stage, exc, tb


def child_entry(conn, private_dir: str) -> None:
    """Process entry: own session, scrubbed env, private dir; take ONE job, answer, exit."""
    close_inherited(conn.fileno())
    os.setsid()
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):  # candidate prints never reach the judge's stdout
        out = os.open(os.path.join(private_dir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(out, fd)
        os.close(out)
    from leap.sandbox.pool.isolation import worker_env

    env = worker_env(dict(os.environ), home=private_dir)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(private_dir)
    try:
        job = json.loads(conn.recv_bytes().decode())
    except (EOFError, OSError):
        _exit(0)
    imported: list = []  # set once candidate code started running: a later harness error may be its doing
    try:
        result = run_job(job, private_dir, conn, imported)
    except CandidateError as err:
        result = {"ok": False, "stage": err.stage, "error": _describe(err.exc, err.tb)}
    except BaseException as exc:  # noqa: BLE001 - everything becomes a verdict
        result = {"ok": False, "stage": "after_candidate" if imported else "harness",
                  "error": _describe(exc, traceback.format_exc())}
    result["type"] = "result"
    try:
        conn.send_bytes(_dumps(result, default=str).encode())
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        _exit(0)


def _describe(exc: BaseException, tb: str) -> dict:
    return {"kind": type(exc).__name__, "message": str(exc)[:4000], "traceback": tb[-6000:],
            "origin": raise_site(exc)}


def _write_candidate(source: str, private_dir: str) -> None:
    """The source as a file, before any candidate code runs (a full scratch filesystem is the harness's
    failure here, never the candidate's)."""
    with open(os.path.join(private_dir, "candidate.py"), "w") as f:
        f.write(source)


def _import_candidate(private_dir: str):
    path = os.path.join(private_dir, "candidate.py")
    spec = importlib.util.spec_from_file_location("leap_candidate", path)
    module = importlib.util.module_from_spec(spec)
    _shadow_interpreter_modules(module)
    sys.modules["leap_candidate"] = module
    spec.loader.exec_module(module)
    return module


def _shadow_interpreter_modules(module) -> None:
    """Bind (to None) every module name of Triton's CPU interpreter in the candidate's globals before it runs:
    on a kernel's first launch the interpreter copies its own globals into the kernel's module where a name
    is missing, which would hand candidate code ``inspect``, ``numpy``, ``os``... that it never imported (a
    binding that never runs, such as ``inspect: object``, gets past the gate's `unbound_name`). The names its
    rewritten kernels use (classes and objects, not modules) are still copied."""
    if os.environ.get("TRITON_INTERPRET", "0") in ("", "0") and "triton.runtime.interpreter" not in sys.modules:
        return  # compiled Triton: no interpreter runs kernel bodies as Python
    try:
        interp = importlib.import_module("triton.runtime.interpreter")
    except ImportError:  # pragma: no cover - no triton
        return
    for key, value in vars(interp).items():
        if isinstance(value, types.ModuleType) and not key.startswith("__"):
            module.__dict__.setdefault(key, None)


def _stage(stage: str, fn, *args):
    try:
        return fn(*args)
    except BaseException as exc:  # noqa: BLE001
        raise CandidateError(stage, exc, traceback.format_exc()) from None


def run_job(job: Job | dict, private_dir: str, conn, imported: list | None = None) -> dict:
    stages: dict[str, float] = {}
    t0 = _perf()
    D = _D  # bound here: rebinding the module global later (from candidate code) changes nothing
    integrity = D.integrity_problems if D is not None else None  # likewise its check (which watches the
    # harness modules' own functions, e.g. the output writer `_save`, for rebinding)
    job = job if isinstance(job, Job) else Job.from_wire(job)  # a malformed job: the harness's error
    settings = _settings(job)  # read before the candidate runs (it can reach the job dict, not these)
    setup_env(job, private_dir)
    order = None  # the interpreter's program order (bound before candidate code): reversed for the poison re-run,
    secret = int.from_bytes(os.urandom(8), "little")  # shuffled by this secret for every trial after the first
    if job.type != "compile":
        match_triton_mode()
        if os.environ.get("TRITON_INTERPRET") == "1":  # bf16 arithmetic and libdevice as on the GPU
            order = _races.program_order if settings["local"] else None  # the judge's checks compare bits
            _bf16.install()
            _libdevice.install()
            _masks.install()
            _reduce.install()
            _rewrite.install()
    iso = isolate(job, private_dir)
    # the forkserver (a candidate that kills it is caught at the end); read after the isolation: in a PID
    # namespace the parent is outside it (0 here) and the forkserver is out of the candidate's reach
    parent = _getppid()
    stages["isolate"] = _perf() - t0
    builds: list = []
    if job.backend == "cuda_inline" and job.ext_cache:
        redirect_load_inline(job.ext_cache, builds)
    t0 = _perf()
    if job.type == "ipc_probe":  # the judge checks that CUDA IPC works through the isolation
        x = _ipc_receive(thaw(job.record), "cuda")
        return {"ok": _emit(conn, {"transport": "ipc"}, "probe", x * 2, "") == {"ipc_key": "probe"},
                "stage": "done", "isolation": iso}
    _write_candidate(job.source, private_dir)
    if imported is not None:
        imported.append(True)
    conn.send_bytes(_dumps({"type": "importing"}).encode())  # the judge's record: later failures may be its doing
    if job.type == "compile":
        try:
            module = _import_candidate(private_dir)
            if not builds and hasattr(module, "ModelNew"):  # extension built in __init__
                init = _load(job.init_file, weights_only=True) if job.init_file else []
                module.ModelNew(*init)
        except BaseException as exc:  # noqa: BLE001 - errors after a good build are the check's business
            if not builds or not all(b["ok"] for b in builds):
                return {"ok": False, "stage": "compile", "builds": builds,
                        "error": _describe(exc, traceback.format_exc())}
        return {"ok": True, "stage": "compile", "builds": builds, "isolation": iso,
                "stages": {"compile": _perf() - t0}}
    held = _hold_inputs(job)  # read and unlinked before the candidate runs: nothing of them left on disk
    guard = None
    if settings["guard"]:  # the run-time compute backstop, pushed before any candidate code runs
        guard = _guard.install(settings["allowed_ops"], settings["nonce"], settings["library_calls"])
        if D is not None:
            D.accept_harness_wrappers()
    try:
        module = _stage("load", _import_candidate, private_dir)
    except CandidateError:
        if builds and not all(b["ok"] for b in builds):
            raise CandidateError("compile", RuntimeError(builds[-1].get("error", "")), "") from None
        raise
    stages["load"] = _perf() - t0
    device = "cuda" if job.device == "cuda" else "cpu"
    cls = getattr(module, "ModelNew", None)
    if cls is None:
        raise CandidateError("load", NameError("the solution does not define ModelNew"), "")
    init_inputs = _fresh(held.get(job.init_file, []), "cpu")
    if device == "cuda":  # the CUDA context, measured on its own (a fixed cost of every GPU child)
        t0 = _perf()
        _empty((1,), device="cuda")
        stages["cuda_init"] = _perf() - t0
    t0 = _perf()

    def build():
        torch.manual_seed(settings["init_seed"])
        return cls(*init_inputs).to(device)

    model = _stage("init", build)
    stages["init"] = _perf() - t0
    t0 = _perf()
    out_dir = os.path.join(private_dir, "out")
    os.makedirs(out_dir, exist_ok=True)
    trials = []
    local = settings["local"]
    problems: list[str] = []
    if D is not None:  # a trace or profile function set at import or in __init__ would run in the judge's code
        problems += D.dropped_hooks(profile=True)
    if device == "cuda" and job.backend == "triton" and job.compile_pass and job.trials:
        stages["compile"] = _precompile(model, _trial_inputs(job.trials[0], "cuda", held), problems, D)
        t0 = _perf()
    if device == "cuda":  # trial runs share the GPU with other candidates' checks, never with timing
        _gpu_lock(conn, "shared")
    rot = D.InputRotation() if D is not None else None
    # init-only functions starting during forward (reached by a route the gate did not see): the harness's
    # own path to the candidate's file, not the module's (which candidate code can change)
    watch = D.InitWatch(os.path.join(private_dir, "candidate.py"), settings["init_code"]) \
        if D is not None and settings["init_code"] else None
    n_fp = settings["fingerprint_trials"]
    armed = 0
    # after timing, trial 1's values go through the timed call's buffers and must give trial 1's output again
    after, seed = None, D.secret_seed() if D is not None else 0
    watch_timing = D is not None and device == "cuda" and settings["timing"] and len(settings["trials"]) > 1
    for i, trial in enumerate(settings["trials"]):
        rec = {"name": trial.name}
        runs = [0, 1] if i < settings["poison_rechecks"] else [0]
        first = second = None
        for r in runs:  # a third run (r 2, run 0's poison again) only when the poison re-run's bits differ
            tick = _perf()
            inputs = _trial_inputs(trial, device, held)
            if rot is not None:  # same buffers every trial: pointer/shape caches go stale
                inputs = rot.bind(inputs)
            if D is not None:  # attributes set on them (init code finding them) would run in our calls
                problems += D.plain_inputs(inputs)
            kept = [x.clone() if isinstance(x, torch.Tensor) else x for x in inputs] if local and r == 0 else None
            tick = _add(stages, "run_inputs", tick)
            _poison(device, settings["poison_bytes"], r % 2)
            tick = _add(stages, "run_poison", tick)
            if guard is not None:
                armed += 1  # the harness's own arm calls, checked against the guard's count
                guard.arm()
            if order is not None:  # re-runs: every launch's programs in reverse order; later trials: shuffled
                order("reverse" if r > 0 else (secret ^ i) if i else None)
            try:
                with torch.no_grad():
                    if D is not None:
                        out, probs = _stage("run", D.guarded_call, model, inputs, device, i < n_fp and r == 0,
                                            watch)
                        problems += probs
                    else:
                        out = _stage("run", model, *inputs)
                        if device == "cuda":
                            _stage("run", _sync)
            finally:
                if order is not None:
                    order(None)
                if guard is not None:
                    guard.disarm()
            if guard is not None:
                guard.check_output(out)
            first_run = _perf() - tick
            tick = _add(stages, "run_forward", tick)
            if watch_timing and i == 1 and r == 0:
                after = D.value_sample(out, seed)
            if local:  # bitwise checks here, with functions bound before the candidate loaded
                if r == 0:
                    rec["inputs_unchanged"] = _bits_equal(kept, inputs)
                    first = out
                elif r == 1:
                    second = out
                    if order is not None:
                        rec["reordered"] = True
                    rec["poison_identical"] = _bits_equal(first, out)
                    _add(stages, "run_checks", tick)
                    if not rec["poison_identical"]:
                        runs.append(2)  # poison-dependent, or nondeterministic (float atomics)? rerun under run 0's
                    continue
                else:  # run 2: run 0's poison (reordered: in run 1's order); run 3 (reordered only): run 1 again.
                    # Bits that follow the order, or differ under the same conditions (nondeterministic), send the
                    # poison re-run to the judge's reference check; bits that follow the poison are refused
                    if order is None or r == 3:
                        nondet = not _bits_equal(first if r == 2 else second, out)
                    elif _bits_equal(second, out) or _bits_equal(first, out):
                        nondet = _bits_equal(second, out)  # the order changed the bits, not the poison
                    else:  # order and poison, or nondeterministic: run 1's conditions once more
                        runs.append(3)
                        _add(stages, "run_checks", tick)
                        continue
                    rec["nondeterministic"] = nondet
                    _add(stages, "run_checks", tick)
                    if not nondet:
                        continue
                    out, r = second, 1
                tick = _add(stages, "run_checks", tick)
            path = os.path.join(out_dir, f"t{i}_r{r}.pt")
            if r == 0:  # outputs travel on the CPU or by IPC: record where the candidate put them
                rec["devices"] = _devices(out)
            rec["out" if r == 0 else "out_b"] = _stage("output", _emit, conn, job, f"t{i}_r{r}", out, path)
            if i == 0 and r == 0 and device == "cpu":  # how long a run takes here, whether it was clean, and its
                conn.send_bytes(_dumps({  # output: a correct kernel too slow for the CPU interpreter is told
                    "type": "progress", "first_run_s": first_run, "out": rec["out"],
                    "clean": not problems and (guard is None or guard.clean()),
                    "runs": len(settings["trials"]) + settings["poison_rechecks"]}).encode())
            if r == 0 and not local:
                rec["inputs_after"] = _emit(conn, job, f"t{i}_in", inputs, os.path.join(out_dir, f"t{i}_in.pt"))
            _add(stages, "run_emit", tick)
        trials.append(rec)
    if device == "cuda":
        _gpu_unlock(conn)
    stages["run"] = _perf() - t0
    if D is not None:
        problems += integrity()
    computed = guard.problems(settings["rules"], settings["need_launch"], armed) if guard is not None else []
    if computed:
        return {"ok": False, "stage": "rejected", "compute": True, "problems": (computed + problems)[:10],
                "stages": stages, "isolation": iso}
    if _getppid() != parent:
        return {"ok": False, "stage": "rejected", "parent_lost": True, "stages": stages, "isolation": iso,
                "problems": ["the worker's forkserver was killed during the run"]}
    if problems:
        return {"ok": False, "stage": "rejected", "problems": problems[:10], "stages": stages, "isolation": iso}
    result = {"ok": True, "stage": "done", "trials": trials, "stages": stages, "isolation": iso,
              "builds": builds}
    timing = settings["timing"]
    if timing and device == "cuda":
        timed = _trial_inputs(job.trials[0], "cuda", held)
        result["timing"] = _time(model, timed, conn, timing, stages)
        late = integrity() if integrity is not None else []
        if after is not None:  # forward calls again: under the shared lock, out of others' timing windows
            _gpu_lock(conn, "shared")
            try:
                stale = _stage("run", D.follows_new_values, model, timed,
                               _trial_inputs(job.trials[1], "cuda", held), after, seed, "cuda") is False
            finally:
                _gpu_unlock(conn)
            if stale:
                late.append("after timing, new values in the timed call's input buffers gave a stale output")
        if _getppid() != parent:
            late.append("the worker's forkserver was killed during timing")
        if late:
            return {"ok": False, "stage": "rejected", "problems": late[:10], "stages": stages, "isolation": iso}
    return result


def _add(stages: dict, key: str, since: float) -> float:
    """Add the time since ``since`` to ``stages[key]``; returns now."""
    now = _perf()
    stages[key] = stages.get(key, 0.0) + now - since
    return now


def _settings(job: Job) -> dict:
    """The job's check settings, copied out before the candidate is imported."""
    return {"local": bool(job.child_checks), "fingerprint_trials": int(job.fingerprint_trials),
            "poison_rechecks": int(job.poison_rechecks), "poison_bytes": int(job.poison_bytes),
            "trials": job.trials, "rules": str(job.rules or "leap"),
            "guard": job.type == "check" and job.device == "cpu" and bool(job.compute_guard),
            "allowed_ops": tuple(job.allowed_ops), "nonce": int(job.guard_nonce or 1),
            "library_calls": None if job.library_calls is None else tuple(tuple(c) for c in job.library_calls),
            "need_launch": job.backend == "triton",
            "init_seed": int(job.init_seed), "init_code": tuple(job.init_code),
            "timing": {**vars(job.timing), "allowed_ops": tuple(job.allowed_ops)} if job.timing else None}


def _precompile(model, inputs: list, problems: list, D) -> float:  # noqa: N803 - the detectors module
    """Compile the Triton kernels before taking the GPU lock (`compile_pass`); a thread or process the
    candidate leaves running after it is flagged like one left after a trial."""
    t0 = _perf()
    threads = D.python_threads() if D is not None else set()
    _compile_kernels(model, inputs)
    if D is not None:
        problems += D.leftovers(threads, "the compile pass")
    return _perf() - t0


def _gpu_lock(conn, mode: str) -> None:
    """Ask the judge for this GPU (shared: trial runs; exclusive: timing) and wait for the grant."""
    conn.send_bytes(_dumps({"type": "lock", "mode": mode}).encode())
    reply = json.loads(conn.recv_bytes().decode())
    if reply.get("type") != "granted":
        raise RuntimeError("GPU lock refused")


def _gpu_unlock(conn) -> None:
    conn.send_bytes(_dumps({"type": "unlock"}).encode())


def _time(model, inputs: list, conn, timing: dict, stages: dict) -> dict:
    _gpu_lock(conn, "exclusive")
    t0 = _perf()
    try:
        with torch.no_grad():
            res = _stage("timing", child_timing.measure, model, inputs, timing)
    finally:
        _gpu_unlock(conn)
    stages["timing"] = _perf() - t0
    return res


def _hold_inputs(job: Job) -> dict:
    """The init file's and every trial file's contents (CPU, memory-mapped), by path, read before the candidate
    is imported; then the files are unlinked, so candidate code finds no trial input on disk to answer from
    (the mappings keep the data). A file that cannot be unlinked is the harness's error."""
    held: dict = {}
    if job.type != "check":
        return held
    paths = [job.init_file] if job.init_file else []
    paths += [t.inputs for t in job.trials if t.inputs]
    for path in paths:
        held[path] = _load(path, weights_only=True, map_location="cpu", mmap=True)
        _unlink(path)
    return held


def _fresh(obj, device: str):
    """A copy of held inputs on ``device`` (tensors copied, containers rebuilt): every run gets its own."""
    if isinstance(obj, _Tensor):
        return _to(obj, device, copy=True)
    if isinstance(obj, list | tuple):
        return type(obj)(_fresh(o, device) for o in obj)
    return obj


def _trial_inputs(trial, device: str, held: dict) -> list:  # a `TrialInput`
    """One trial's inputs: CUDA IPC records (cloned into our own tensors) and inline scalars, or a copy of
    what `_hold_inputs` read from its file."""
    items = trial.ipc_items()
    if items is None:
        return _fresh(held[trial.inputs], device)
    return [_ipc_receive(it["t"], device) if "t" in it else it.get("v") for it in items]


def _transport(job: Job | dict) -> str:
    return job.get("transport", "files") if isinstance(job, dict) else job.transport


def _emit(conn, job: Job | dict, key: str, out, path: str):
    """Hand an output back: by CUDA IPC when the job says so and it is a CUDA tensor or a flat list/tuple
    of them (the judge copies before answering, then our buffers go), else as a file on the CPU."""
    flat = [out] if isinstance(out, _Tensor) else list(out) if isinstance(out, list | tuple) else None
    if _transport(job) == "ipc" and flat and all(type(t) is _Tensor and t.is_cuda for t in flat):
        exp = _Exported()
        try:
            kind = "tensor" if isinstance(out, _Tensor) else "list" if isinstance(out, list) else "tuple"
            msg = {"type": "tensors", "key": key, "kind": kind, "items": [exp.export(t) for t in flat]}
            conn.send_bytes(_dumps(msg).encode())
            reply = json.loads(conn.recv_bytes().decode())
        finally:
            exp.free()
        if reply.get("type") != "received":
            raise RuntimeError(f"the judge refused the outputs: {reply.get('error', reply)}")
        return {"ipc_key": key}
    try:
        _save(_to_cpu(out), path)
    except Exception as exc:  # noqa: BLE001 - a full scratch filesystem shows as a torch.save internal error
        if _free_bytes(os.path.dirname(path) or ".") < FULL_BELOW:
            raise OSError(errno.ENOSPC, "No space left on device (scratch space full while saving the outputs)") \
                from exc
        raise
    return path


FULL_BELOW = 1 << 20  # free bytes under which the scratch filesystem counts as full


def _free_bytes(path: str) -> int:
    try:
        st = _statvfs(path)
    except OSError:
        return 1 << 62
    return st.f_bavail * st.f_frsize


def _bits_equal(a, b) -> bool:
    """Same structure and the same bits (NaNs included) in every tensor."""
    if isinstance(a, _Tensor) and isinstance(b, _Tensor):
        if a.shape != b.shape or a.dtype != b.dtype or a.device != b.device:
            return False
        if a.numel() == 0:
            return True
        return bool(_equal(a.contiguous().view(-1).view(_uint8), b.contiguous().view(-1).view(_uint8)))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_bits_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, _Tensor) or isinstance(b, _Tensor):
        return False
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001
        return False


def _devices(obj) -> list[str]:
    """Device type of every tensor in an output, in order."""
    if isinstance(obj, _Tensor):
        return [obj.device.type]
    if isinstance(obj, list | tuple):
        return [d for o in obj for d in _devices(o)]
    return []


def _to_cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().to("cpu")
    if isinstance(obj, list | tuple):
        return type(obj)(_to_cpu(o) for o in obj) if isinstance(obj, list) else tuple(_to_cpu(o) for o in obj)
    return obj


if _D is not None:
    from leap.sandbox.worker import child_env

    _D.register_harness(sys.modules[__name__], child_timing, child_env, _guard, _D)
