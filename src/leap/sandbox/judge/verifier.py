"""One candidate, end to end, on the judge side: gate -> compile -> check in a child -> compare ->
(GPU) timing -> `Verdict`. References are computed here, in the judge's process, never in the child.

A trial that fails on values alone (at most `EXACT_MAX_BAD_SHARE` of an output's values outside the
tolerance, a floating output, a task whose forward is not random) is compared once more with the exact
answer: the float64 twin of the reference on the same inputs (`leap.sandbox.judge.reference.exact_reference`,
computed here, only for such a trial), accepted when the output is within the tolerance of it widened by the
reference's own error and the answer's spread under rounding noise (`leap.sandbox.judge.compare`'s module
docstring). Where the twin cannot run the
verdict stays the comparison with the reference. The verdict's ``detail`` says where the exact answer was
used (`stamp` adds it, with its time as the ``exact_reference`` stage).
"""

from __future__ import annotations

import os
import secrets
import stat
import threading
import time
import traceback
import types
from dataclasses import dataclass, field

import torch

from leap.sandbox.config import SandboxConfig
from leap.sandbox.judge import judge_shim as J
from leap.sandbox.judge import verdicts
from leap.sandbox.judge.reference import exact_reference
from leap.sandbox.judge.verdict import RuntimeStats, Verdict
from leap.sandbox.worker.error_origin import CANDIDATE_CUDA_CHECK
from leap.sandbox.worker.host_check import excess_us
from leap.tasks.task import Task

INIT_SEED = 42
COMPILE_KINDS = ("CompilationError", "CompileTimeAssertionFailure", "KernelCheckError",  # triton, its front end
                 "CompileException", "NVRTCError")  # cupy / cuda.core NVRTC
NEEDS_GPU_MARKERS = ("torch not compiled with cuda", "found no nvidia driver", "no cuda gpus are available",
                     "cuda driver initialization failed", "autotun", "cannot access cuda", "cuda is not available",
                     "active drivers",  # triton 3.9: an autotuner benchmarking with no GPU driver
                     "is not available in triton's cpu interpreter",  # worker/interpreter_libdevice.UNSUPPORTED
                     "inline_asm not supported in interpreter mode")  # Triton's interpreter
# where those errors start (`needs_gpu_error`): torch's CUDA initialisation, Triton's driver lookup (an autotuner
# or a benchmark with no GPU), the interpreter's libdevice stand-ins
NEEDS_GPU_ORIGINS = ("/torch/cuda/", "/triton/runtime/driver.py", "/triton/backends/", "/triton/runtime/interpreter.py",
                     "/leap/sandbox/worker/interpreter_libdevice.py",
                     "/leap/sandbox/worker/interpreter_masks.py")  # a pointer read from tensor data
NEEDS_GPU_TRITON = ("Running this solution needs a CUDA GPU (it uses CUDA tensors, autotuning or a libdevice "
                    "function the CPU interpreter cannot run): {why}. It was not judged here.")
NEEDS_GPU_TASK = "This task needs a CUDA GPU (its inputs or model are made on a CUDA device: {why}); none is " \
                 "available here, so the solution was not judged."
SANDBOX_ERROR = "The sandbox failed while evaluating this solution ({why}); this says nothing about the solution."
EXACT_MAX_BAD_SHARE = 0.25  # a trial with more of an output's values wrong is not compared with float64 (wrong)
_EXACT = threading.local()  # this thread's notes on the exact answer since its check began (see `stamp`)


@dataclass
class Prepared:
    """Judge-side state for one candidate (or one round of its trials, `leap.sandbox.judge.memory_plan`):
    trial inputs and reference outputs; ``first`` is the round's first trial index, ``total`` the check's
    trial count over all rounds (0: this round is the whole check)."""

    init_inputs: list
    trials: list
    refs: list
    skipped: int
    device: str = "cpu"
    first: int = 0
    total: int = 0
    module: types.ModuleType | None = None  # the task's module (the float64 twin is built from it)
    twin: list = field(default_factory=lambda: [None])  # the float64 twin, once built
    exact: dict = field(default_factory=dict)  # trial index -> its `leap.sandbox.judge.reference.Exact`

    @property
    def n_total(self) -> int:
        return self.total or len(self.trials)


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device not in ("cpu", "cuda"):
        raise ValueError(f"device must be auto, cpu or cuda (got {device!r})")
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda requested but no CUDA GPU is visible")
    return device


def prepare(task: Task, device: str, config: SandboxConfig, gpu: int | None, n: int | None = None,
            first: int = 0, total: int = 0) -> Prepared:
    """Trial inputs from a secret per-evaluation seed, and reference outputs computed here: all
    ``config.trials`` of them, or the ``n`` trials from index ``first`` of ``total`` (one round of a check in
    rounds)."""
    module = J.load_task_module(task.source, task.name)
    if not first:  # a new check: notes on the exact answer start afresh
        _take_exact_notes()
    small = device == "cpu"
    init_inputs = J.init_inputs(module, INIT_SEED)
    dev = f"cuda:{gpu}" if device == "cuda" and gpu is not None else device
    model = J.build_reference(module, init_inputs, INIT_SEED, dev)
    seed = secrets.randbits(62)
    want = config.trials if n is None else n
    trials, refs, skipped = [], [], 0
    attempts = 0
    while len(trials) < want and attempts < 3 * config.trials:
        # only the trials still missing (the plan's memory); the variant cycle moves on past skipped ones
        batch = J.make_trials(task, module, n_trials=want - len(trials), seed=seed + attempts, small=small,
                              device=dev, first=first + attempts)
        for trial in batch:
            attempts += 1
            with torch.no_grad():
                args = [x.to(dev) if isinstance(x, torch.Tensor) else x for x in trial.inputs]
                ref = model(*[a.clone() if isinstance(a, torch.Tensor) else a for a in args])
                ref = _detach(ref) if dev != "cpu" else _cpu(ref)  # GPU: compare there, it is faster
            if J.is_degenerate(ref):
                skipped += 1
                continue
            trials.append(trial)
            refs.append(ref)
            if len(trials) >= want:
                break
    return Prepared(init_inputs, trials, refs, skipped, dev, first, 0 if n is None else total or config.trials,
                    module=module)


def _detach(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach()
    if isinstance(obj, list | tuple):
        return type(obj)(_detach(o) for o in obj)
    return obj


def _cpu(obj):
    if isinstance(obj, torch.Tensor):
        return obj.detach().cpu()
    if isinstance(obj, list | tuple):
        return type(obj)(_cpu(o) for o in obj)
    return obj


def write_inputs(prep: Prepared, private_dir: str, ipc=None) -> dict:
    """Hand init and trial inputs to the child: torch.save files in its private dir (never the seed), or,
    with ``ipc`` (a `cuda_ipc.Exported`), CUDA tensors as IPC records and scalars inline in the job."""
    in_dir = os.path.join(private_dir, "in")
    os.makedirs(in_dir, exist_ok=True)
    init_file = os.path.join(in_dir, "init.pt")
    torch.save(prep.init_inputs, init_file)
    trials = []
    for i, t in enumerate(prep.trials):
        items = _ipc_items(t.inputs, prep.device, ipc) if ipc is not None else None
        if items is not None:
            trials.append({"name": t.name, "ipc_inputs": items})
            continue
        p = os.path.join(in_dir, f"t{i}.pt")
        torch.save(list(t.inputs), p)
        trials.append({"name": t.name, "inputs": p})
    return {"init_file": init_file, "trials": trials}


def _ipc_items(inputs, device: str, ipc) -> list | None:
    """IPC records for a trial's inputs, or None when one of them cannot travel that way."""
    if not isinstance(inputs, list | tuple):
        return None
    items = []
    for x in inputs:
        if isinstance(x, torch.Tensor) and type(x) is torch.Tensor:
            items.append({"t": ipc.export(x.to(device))})
        elif x is None or isinstance(x, bool | int | float | str):
            items.append({"v": x})
        else:
            return None
    return items


def load_output(ref, private_dir: str, device: str = "cpu", received: dict | None = None):
    """An output the child handed back: a tensor received over CUDA IPC (``{"ipc_key": k}``) or a file it
    wrote (only plain tensors/containers, weights_only; only from its own dir)."""
    if isinstance(ref, dict):
        key = ref.get("ipc_key")
        if received is None or key not in received:
            raise ValueError(f"output {key!r} was not received")
        return received[key]
    real = os.path.realpath(ref)
    if not real.startswith(os.path.realpath(private_dir) + os.sep):
        raise ValueError("output path outside the candidate's private directory")
    fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)  # a FIFO must not block the judge
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise ValueError("output is not a regular file")
        # through the checked descriptor: the file cannot be swapped for another between check and load
        return torch.load(f"/proc/self/fd/{fd}", weights_only=True, map_location=device, mmap=True)
    finally:
        os.close(fd)


def verdict_from_failure(result: dict, base: dict) -> Verdict:
    """A child that answered with an error: compile_error or runtime_error with readable feedback, or
    rejected when the run-time detectors objected (generic words for the policy, specifics in detail)."""
    if result.get("stage") == "rejected":
        try:
            from leap.sandbox.worker.detectors import GENERIC_FEEDBACK as generic
        except ImportError:
            generic = "The solution was rejected by the sandbox's run-time checks."
        if result.get("compute"):
            from leap.sandbox.worker.compute_guard import FEEDBACK as generic
        return verdicts.rejected(base, compiled=True, feedback=generic,
                                 detail="; ".join(str(p) for p in result.get("problems") or [])[:3000])
    err = result.get("error") or {}
    stage, kind, msg = result.get("stage", ""), err.get("kind", "Error"), err.get("message", "")
    tb = err.get("traceback", "")
    if stage == "harness":  # the harness itself failed (not the candidate's code)
        return sandbox_error("the sandbox harness failed", f"{kind}: {msg}\n{tb[-2000:]}", base)
    if base.get("device") == "cpu" and stage != "compile" and needs_gpu_error(kind, msg, err.get("origin") or ""):
        return verdicts.needs_gpu(base, compiled=stage not in ("load",), detail=tb[-3000:],
                                  feedback=NEEDS_GPU_TRITON.format(why=(_first_line(msg) or kind).rstrip(".")))
    if stage == "compile" or kind in COMPILE_KINDS or "Error building extension" in msg:
        text = J.trim_compiler_error(msg or tb)
        return verdicts.compile_error(base, feedback=f"Compilation failed:\n{text}", detail=tb[-3000:])
    where = {"load": "while importing the solution", "init": "while constructing ModelNew",
             "run": "while running forward", "output": "while returning outputs",
             "timing": "while timing", "after_candidate": "after the solution's code ran"
             }.get(stage, "in the sandbox harness")
    lines = _candidate_tb(tb)
    fb = f"Runtime error {where}: {kind}: {msg.strip()[:800]}"
    if lines:
        fb += "\n" + lines
    return verdicts.runtime_error(base, compiled=stage not in ("load",), feedback=fb,
                                  detail=tb[-3000:])


def needs_gpu_error(kind: str, msg: str, origin: str | None = None) -> bool:
    """The error a solution raises when it needs CUDA (tensors on ``cuda``, autotuning) on a CPU-only
    machine: the solution may be fine, this machine cannot say. For a candidate's error ``origin`` (where the
    child saw its chain start, `worker/error_origin.raise_site`) must be the library code that raises such
    errors, or the candidate's own failed check that its inputs are on CUDA: a message the candidate wrote
    itself (a ``raise``, a ``tl.static_assert``) says nothing."""
    if origin == CANDIDATE_CUDA_CHECK:  # its own check that the inputs are on CUDA failed (KernelBench's style)
        return True
    if _interpreter_lacks(kind, msg, origin):
        return True
    if origin is not None and not any(o in origin.replace("\\", "/") for o in NEEDS_GPU_ORIGINS):
        return False
    low = msg.lower()
    return any(m in low for m in NEEDS_GPU_MARKERS) or (kind == "AssertionError" and "cuda" in low)


def _interpreter_lacks(kind: str, msg: str, origin: str | None) -> bool:
    """A Triton language feature the CPU interpreter has no builder method for (``tl.map_elementwise``: "'Interpreter
    Builder' object has no attribute 'new_block'", red-team round 25): raised by Triton's own language code."""
    return (kind in ("AttributeError", "InterpreterError") and "'interpreterbuilder' object has no attribute" in msg.lower()
            and (origin or "").replace("\\", "/").endswith("/triton/language/core.py"))


def _first_line(msg: str) -> str:
    return (msg.strip().splitlines() or [""])[0][:300]


def _candidate_tb(tb: str) -> str:
    """The traceback lines that point into the candidate's own file (short, readable)."""
    out, keep = [], False
    for ln in tb.splitlines():
        if "candidate.py" in ln:
            out.append(ln.strip().replace(ln.strip().split('"')[1] if '"' in ln else "", "solution.py"))
            keep = True
        elif keep and ln.startswith("    "):
            out.append("  " + ln.strip())
            keep = False
    return "\n".join(out[-6:])


def judge_outputs(task: Task, prep: Prepared, result: dict, private_dir: str, config: SandboxConfig,
                  base: dict, received: dict | None = None) -> tuple[Verdict | None, J.Compared | None]:
    """Compare every trial: reference match, poison re-run bit-identity, inputs unchanged."""
    worst: J.Compared | None = None
    tol = dict(dtype=task.dtype, rtol=task.rtol, atol=task.atol, tolerances=config.tolerances.model_dump())
    trials = result.get("trials") or []
    if len(trials) != len(prep.trials):
        return verdicts.runtime_error(base, compiled=True,
                                      feedback="The solution did not produce outputs for every trial."), None
    for i, (rec, trial, ref) in enumerate(zip(trials, prep.trials, prep.refs, strict=True)):
        prep.exact.clear()  # an earlier trial's float64 answer is not needed again: free its memory
        missing = _missing_checks(rec, i, config)
        if missing:  # every check the judge asked for must have a result: a missing one is a failure
            return verdicts.rejected(base, compiled=True, trials=prep.first + i,
                                     feedback="The solution was rejected by the sandbox's run-time checks.",
                                     detail=f"trial {i}: no result for {', '.join(missing)}"), None
        try:
            out = load_output(rec["out"], private_dir, prep.device, received)
            after = (load_output(rec["inputs_after"], private_dir, prep.device, received)
                     if rec.get("inputs_after") else None)
            out_b = load_output(rec["out_b"], private_dir, prep.device, received) if rec.get("out_b") else None
        except Exception as exc:  # noqa: BLE001 - unloadable output = not a tensor result
            return verdicts.runtime_error(base, compiled=True, trials=prep.first + i,
                                          feedback="forward must return a tensor or a tuple/list of tensors.",
                                          detail=f"{type(exc).__name__}: {exc}"), None
        want = [t.device.type for t in J.flat(ref) if isinstance(t, torch.Tensor)]
        got = rec.get("devices")
        if got is not None and got != want:
            return verdicts.incorrect(base, trials=prep.first + i,
                                      feedback=f"Output device mismatch: expected {want}, got {got} (outputs must stay on "
                                               "the inputs' device)."), None
        cmp = with_exact(task, prep, i, ref, out, J.compare_outputs(ref, out, **tol), tol)
        if worst is None or (cmp.max_abs_error or 0) > (worst.max_abs_error or 0):
            worst = cmp
        if not cmp.ok:
            return verdicts.incorrect(base, trials=prep.first + i,
                                      max_abs_error=cmp.max_abs_error, max_rel_error=cmp.max_rel_error,
                                      feedback=J.mismatch_feedback(cmp, prep.first + i,
                                                                   getattr(trial, "variant", "") or trial.name,
                                                                   prep.n_total),
                                      detail=f"float64 reference: {cmp.exact}" if cmp.exact else ""), cmp
        if (out_b is not None and not J.bit_identical(out, out_b)) or rec.get("poison_identical") is False:
            # bits that follow the poison: a read of memory the kernel did not write. Unless the child saw the
            # kernel differ under the same poison too (float atomics summing in another order): then the
            # poison re-run must still match the reference
            cmp_b = (with_exact(task, prep, i, ref, out_b, J.compare_outputs(ref, out_b, **tol), tol)
                     if out_b is not None and rec.get("nondeterministic") is True else None)
            if cmp_b is None or not cmp_b.ok:
                return verdicts.incorrect(base, trials=prep.first + i, feedback=_rerun_feedback(rec)), cmp
        changed = rec.get("inputs_unchanged") is False or (
            after is not None and not J.bit_identical(list(trial.inputs), list(after) if isinstance(after, list | tuple) else after))
        if changed:
            return verdicts.incorrect(base, trials=prep.first + i,
                                      feedback="forward modified its input tensors; inputs must be left unchanged."), cmp
    return None, worst


def _rerun_feedback(rec: dict) -> str:
    """Why a trial's re-run disqualifies: a poison-dependent output, or (interpreter) one that follows program order."""
    if rec.get("reordered") and rec.get("nondeterministic") is True:
        return ("Outputs differ when the programs of each launch run in another order (and the lanes of an atomic on "
                "one address, or of a can_reorder reshape, come in another order), and are then wrong: on a GPU that "
                "order is not fixed, so the kernel's result depends on timing (a race).")
    return ("Outputs differ between two runs on the same inputs: the kernel reads memory it did not write "
            "(uninitialised or out-of-bounds).")


def first_output_correct(task: Task, prep: Prepared, path: str, private_dir: str, config: SandboxConfig) -> bool:
    """Whether the output a child saved after its first run (trial 0, run 0) matches that trial's reference."""
    if prep.first != 0 or not prep.refs:
        return False
    tol = dict(dtype=task.dtype, rtol=task.rtol, atol=task.atol, tolerances=config.tolerances.model_dump())
    try:
        out = load_output(path, private_dir, prep.device)
    except Exception:  # noqa: BLE001 - no readable output: not shown correct
        return False
    return bool(with_exact(task, prep, 0, prep.refs[0], out, J.compare_outputs(prep.refs[0], out, **tol), tol).ok)


def with_exact(task: Task, prep: Prepared, i: int, ref, out, cmp: J.Compared, tol: dict) -> J.Compared:
    """``cmp`` (trial ``i``'s comparison with the reference), or, when it failed on values alone, the comparison
    with the exact answer (see the module docstring). A success is noted for the verdict's detail (`stamp`);
    a failure's ``exact`` says what the float64 reference decided (the incorrect verdict's detail)."""
    if (cmp.ok or cmp.reason != "value" or prep.module is None or getattr(task, "random_forward", False)
            or (cmp.n_total and cmp.n_bad > EXACT_MAX_BAD_SHARE * cmp.n_total)
            or not any(isinstance(t, torch.Tensor) and (t.is_floating_point() or t.is_complex())
                       for t in J.flat(ref))):
        return cmp
    label = f"trial {prep.first + i} ({getattr(prep.trials[i], 'variant', '') or prep.trials[i].name})"
    if i not in prep.exact:
        t0 = time.monotonic()
        prep.exact[i] = exact_reference(prep.module, prep.init_inputs, prep.trials[i].inputs, device=prep.device,
                                        seed=INIT_SEED, ref_output=ref, twin=prep.twin)
        _exact_state()["seconds"] += time.monotonic() - t0
    found = prep.exact[i]
    if found.output is None:  # the failure stands; the incorrect verdict's detail says why
        cmp.exact = f"not used: {found.why}"
        return cmp
    again = J.compare_outputs(ref, out, exact=found.output, spread=found.spread, **tol)
    if again.ok:
        _exact_state()["notes"].append(f"{label} accepted against the float64 reference: {again.exact}")
    return again


def _exact_state() -> dict:
    st = getattr(_EXACT, "state", None)
    if st is None:
        st = _EXACT.state = {"notes": [], "seconds": 0.0}
    return st


def _take_exact_notes() -> tuple[list[str], float]:
    """This thread's notes on the exact answer and the seconds it took, since its check began; cleared."""
    st = _exact_state()
    notes, secs = st["notes"], st["seconds"]
    _EXACT.state = {"notes": [], "seconds": 0.0}
    return notes, secs


def _missing_checks(rec: dict, i: int, config: SandboxConfig) -> list[str]:
    """The check results trial ``i``'s record lacks (the child's checks or the files for the judge's)."""
    need = ["out"]
    if config.child_checks:
        need.append("inputs_unchanged")
        if i < config.poison_rechecks:
            need.append("poison_identical")
    else:
        need.append("inputs_after")
        if i < config.poison_rechecks:
            need.append("out_b")
    return [k for k in need if not isinstance(rec, dict) or rec.get(k) is None]


def timed_verdict(task: Task, timing: dict, ref_times: tuple[float | None, float | None], config: SandboxConfig,
                  base: dict, cmp: J.Compared | None, n_trials: int) -> Verdict:
    """Speedups from the child's timing and the judge's cached reference timings."""
    rt = float(timing["median_us"])
    eager, comp = ref_times
    extra = dict(trials=n_trials, max_abs_error=cmp.max_abs_error if cmp else None,
                 max_rel_error=cmp.max_rel_error if cmp else None)
    tail = timing.get("tail_us")
    disagree = timing.get("host_agrees") is False or ("host_check" not in timing and (  # re-checked
        excess_us(rt, tail, config.host_clock_tolerance, config.host_clock_slack_us) > 0))
    if disagree:
        return verdicts.rejected(base, compiled=True, runtime_us=rt, **extra,
                                 feedback="Timing is inconsistent: work appears to run outside the measured stream.",
                                 detail=f"events {rt:.1f} us; a device-wide synchronize still waited "
                                        f"{tail or 0.0:.1f} us after the measured stream" + _windows(timing))
    host_bytes = timing.get("host_copy_bytes")
    if host_bytes and config.max_host_copy_bytes is not None and host_bytes > config.max_host_copy_bytes:
        return verdicts.rejected(base, compiled=True, runtime_us=rt, **extra,
                                 feedback=f"The forward copies {host_bytes:,.0f} bytes of device data to the host "
                                          "per call; the computation must stay in kernels on the GPU.",
                                 detail=f"device-to-host copies {host_bytes:.0f} B per call (limit "
                                        f"{config.max_host_copy_bytes} B)")
    frac = timing.get("kernel_fraction")
    if frac is not None and frac < config.kernel_fraction:
        return verdicts.rejected(base, compiled=True, runtime_us=rt, custom_kernel_fraction=frac, **extra,
                                 feedback="Most of the GPU time is spent outside custom kernels; the custom "
                                          "kernels must carry the computation.")
    se = eager / rt if eager and rt > 0 else None
    sc = comp / rt if comp and rt > 0 else None
    fb = J.speed_feedback(rt, eager, comp, n_trials)
    if fb is None:
        fb = f"Correct on {n_trials} trials. Runtime {rt:.1f} us"
        if se:
            fb += f"; speedup {se:.2f}x vs PyTorch eager ({eager:.1f} us)"
        if sc:
            fb += f", {sc:.2f}x vs torch.compile ({comp:.1f} us)"
        fb += "."
    return verdicts.ok(base, runtime_us=rt, ref_runtime_us=eager, runtime_stats=runtime_stats(timing),
                       ref_compile_runtime_us=comp, speedup_eager=se, speedup_compile=sc,
                       custom_kernel_fraction=frac, **extra, feedback=fb)


def runtime_stats(timing: dict) -> RuntimeStats | None:
    """The timed samples' statistics from the child's timing record (None where it lacks them)."""
    try:
        return RuntimeStats(**{k: timing[k] for k in ("median_us", "mean_us", "std_us", "min_us", "max_us",
                                                      "samples")})
    except (KeyError, TypeError, ValueError):
        return None


def _windows(timing: dict) -> str:
    """The timing cross-check's windows in one line each (what the probe saw beside the candidate)."""
    lines = []
    for w in (timing.get("host_check") or {}).get("windows", []):
        nums = ", ".join(f"{k} {w[k]:.1f}" for k in ("event_us", "tail_us", "tail_batch_us", "probe_event_us",
                                                        "probe_tail_us", "probe_tail_batch_us", "host_us",
                                                        "probe_host_us") if w.get(k) is not None)
        lines.append(f"\n{w.get('action')}: {w.get('reason')} ({nums}; probe x{w.get('probe_reps', '?')}, "
                     f"GPU processes {w.get('other_gpu_processes')})")
    return "".join(lines)


def judge_failure(exc: BaseException, base: dict) -> Verdict:
    """An exception in the judge: `needs_gpu` when the task itself needs CUDA on a CPU-only machine (its
    inputs made with ``.cuda()``), else `sandbox_error`; never the candidate's fault."""
    if base.get("device") == "cpu" and needs_gpu_error(type(exc).__name__, str(exc)):
        return verdicts.needs_gpu(base, detail="needs_gpu", feedback=NEEDS_GPU_TASK.format(
            why=_first_line(str(exc))))
    return harness_error(exc, base)


def harness_error(exc: BaseException, base: dict) -> Verdict:
    """An exception in the judge itself: `sandbox_error`, never the candidate's fault."""
    return sandbox_error(f"judge-side {type(exc).__name__}",
                         f"{type(exc).__name__}: {exc}\n{traceback.format_exc()[-2000:]}", base)


def sandbox_error(why: str, detail: str, base: dict) -> Verdict:
    """The judge could not evaluate the candidate (dead forkserver, worker killed by the OS, judge out of
    memory, harness exception); trainers and evaluations do not count it against the candidate."""
    return verdicts.sandbox_error(base, feedback=SANDBOX_ERROR.format(why=why), detail=detail[-3000:])


def merged_rounds(rounds: list[Verdict], n_trials: int, one_a_round: bool = False) -> Verdict:
    """The verdict of a check that passed in rounds: the first (timed) round's, over all ``n_trials``, with the
    largest error any round saw; ``one_a_round``: each round held one trial (said in the detail)."""
    v = rounds[0]
    v.feedback = v.feedback.replace(f"Correct on {v.trials} trials", f"Correct on {n_trials} trials", 1)
    if one_a_round:  # (KernelBench's rules) LEAP's cross-trial checks did not run
        v.detail = (v.detail + "; " if v.detail else "") + (f"trials in {len(rounds)} rounds of one (the task's "
                    "inputs fit the judge's memory one set at a time): the cross-trial checks were skipped")
    v.trials = n_trials
    for k in ("max_abs_error", "max_rel_error"):
        seen = [getattr(r, k) for r in rounds if getattr(r, k) is not None]
        setattr(v, k, max(seen) if seen else None)
    return v


def stamp(v: Verdict, stages: dict, t_start: float) -> Verdict:
    """The stage times on ``v``, and where the exact answer was used (`with_exact`) in its detail."""
    notes, secs = _take_exact_notes()
    if secs:
        stages["exact_reference"] = stages.get("exact_reference", 0.0) + secs
    if notes:
        text = "exact reference: " + "; ".join(notes)
        v.detail = f"{v.detail}\n{text}" if v.detail else text
    v.stage_seconds = {**{k: round(x, 4) for k, x in stages.items()}, "total": round(time.monotonic() - t_start, 4)}
    return v
