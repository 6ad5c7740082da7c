"""The scheduler: pipelines compile (CPU pool) -> correctness check (worker children) -> exclusive
timing per GPU, behind a small `Executor` interface (a Ray implementation can fill it later).

Each candidate is driven by one thread through its stages; stage capacity is bounded separately
(compile slots, check slots, a readers-writer lock per GPU), so a candidate compiling never holds a GPU,
correctness checks on a GPU overlap each other, and timing has the GPU to itself.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Protocol

from leap.sandbox.config import SandboxConfig
from leap.sandbox.gate.backends import PRIORITY
from leap.sandbox.judge import crashes as C
from leap.sandbox.judge import cuda_check, memory_plan, ref_timing, verdicts
from leap.sandbox.judge import judge_shim as J
from leap.sandbox.judge import verifier as V
from leap.sandbox.judge.op_count import task_library_calls
from leap.sandbox.judge.task_module import HostRoomError
from leap.sandbox.judge.verdict import Verdict
from leap.sandbox.pool.gpu_locks import GpuLocks
from leap.sandbox.pool.isolation import reachable_cache_dir
from leap.sandbox.pool.pool import ChildOutcome, WorkerPool
from leap.sandbox.pool.protocol import Job, Limits, TimingSettings, freeze
from leap.tasks.task import Task


class Executor(Protocol):
    """Runs one job in an isolated, single-use worker and returns what came back."""

    def run(self, job: Job, timeout_s: float, on_message: Callable[[dict], dict | None] | None = None,
            prepare: Callable[[str], dict] | None = None) -> ChildOutcome: ...

    def release_dir(self, private_dir: str) -> None: ...

    def close(self) -> None: ...


class Scheduler:
    """Drives candidates through the stages; thread-safe."""

    def __init__(self, config: SandboxConfig, executor: Executor | None = None, device: str = "cpu"):
        self.config = config
        self.device = device
        self._custom = executor is not None
        self._executors: dict[str, Executor] = {}
        self._exec_lock = threading.Lock()
        self.executor = executor or self._executor_for(device)
        self._check_slots = threading.BoundedSemaphore(config.n_workers(device))
        self._compile_slots = threading.BoundedSemaphore(config.n_compile_workers())
        self.gpus = GpuLocks(config.gpu_ids() if device == "cuda" else [])
        uid = config.drop_uid if config.isolation else None  # the candidates' uid must reach the build cache
        self.ext_cache = reachable_cache_dir(os.path.join(str(config.cache_dir), "torch_ext"),
                                             str(config.scratch_dir), uid)
        self._ref_times: dict = {}
        self._prefetches: list[threading.Thread] = []  # reference timings measured in the background
        self._ipc_ok: dict = {}  # GPU -> did the CUDA IPC probe pass
        self._probe_lock = threading.Lock()
        self.ipc_note = ""
        self.planner = memory_plan.Planner(config)  # check plans and per-device memory budgets

    # -- public ---------------------------------------------------------------------------------
    def verify(self, task: Task, source: str, backend: str = "auto", device: str = "auto") -> Verdict:
        t_start = time.monotonic()
        stages: dict[str, float] = {}
        base = {"task": task.name}
        try:
            dev = V.resolve_device(device if device != "auto" else self.device)
            base["device"] = dev
            return V.stamp(self._verify(task, source, backend, dev, stages, base), stages, t_start)
        except Exception as exc:  # noqa: BLE001 - a verdict, always
            return V.stamp(V.judge_failure(exc, base), stages, t_start)

    def verify_many(self, pairs: Iterable[tuple[Task, str]], backend: str = "auto",
                    device: str = "auto") -> Iterator[tuple[int, Verdict]]:
        width = self.config.n_workers(self.device) + self.config.n_compile_workers()
        with ThreadPoolExecutor(max_workers=width, thread_name_prefix="leap-verify") as pool:
            it = iter(enumerate(pairs))
            pending = {}
            for i, (task, src) in itertools.islice(it, 2 * width):
                pending[pool.submit(self.verify, task, src, backend, device)] = i
            while pending:
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    yield i, fut.result()
                    nxt = next(it, None)
                    if nxt is not None:
                        j, (task, src) = nxt
                        pending[pool.submit(self.verify, task, src, backend, device)] = j

    def _executor_for(self, dev: str) -> Executor:
        """The pool for a device's Triton mode (CPU: interpreter; GPU: compiler), created on first use."""
        if self._custom:
            return self.executor
        with self._exec_lock:
            ex = self._executors.get(dev)
            if ex is None:
                cfg = self.config
                prewarm = cfg.n_workers(dev) if cfg.prewarm < 0 else cfg.prewarm
                if dev != self.device:
                    prewarm = 0
                ex = self._executors[dev] = WorkerPool(cfg.scratch_dir, prewarm=prewarm, keep_dirs=cfg.keep_scratch,
                                                       interpret=dev == "cpu", preload_extra=tuple(cfg.preload_extra))
            return ex

    def close(self) -> None:
        for t in self._prefetches:  # a process must not exit under a thread that is using the GPU
            t.join(timeout=self.config.run_timeout_s)
        if self._custom:
            self.executor.close()
        for ex in self._executors.values():
            ex.close()

    # -- stages ---------------------------------------------------------------------------------
    def _verify(self, task: Task, source: str, backend: str, dev: str, stages: dict, base: dict) -> Verdict:
        cfg = self.config
        t0 = time.monotonic()
        if backend not in ("auto", "triton", "cuda_inline", "cuda_nvrtc"):
            raise ValueError(f"unknown backend {backend!r}")
        found = J.detect_backend(source)
        be = found if backend == "auto" else backend
        base["backend"] = be if be in ("triton", "cuda_inline", "cuda_nvrtc") else None
        g = J.gate(source, None if backend == "auto" else backend, task.allowed_ops, full=cfg.static_gate,
                   rules=cfg.rules)
        stages["gate"] = time.monotonic() - t0
        if g.strict:
            base["strict_gate"] = g.strict
        if not g.ok:
            return verdicts.gate_refusal(base, g.status, feedback=g.reason, detail=g.detail)
        if backend == "auto" and g.launched:  # what forward launches, not every backend the text names (a
            be = next(b for b in PRIORITY if b in g.launched)  # "load_inline" string, dead RawKernel code)
            base["backend"] = be
        if be is None:
            return verdicts.format_error(
                base, feedback="No custom kernel found: write a Triton (@triton.jit) or CUDA kernel.")
        if be in ("cuda_inline", "cuda_nvrtc") and dev == "cpu":
            return cuda_check.cpu_verdict(source, be, base, stages, cfg)
        if be == "cuda_inline":
            bad = self._compile(task, source, stages, base)
            if bad is not None:
                return bad
        gpu = self.gpus.assign() if dev == "cuda" else None
        try:
            return self._check_and_time(task, source, be, dev, gpu, stages, base, g.init_code)
        finally:
            self.gpus.done(gpu)

    def _compile(self, task: Task, source: str, stages: dict, base: dict) -> Verdict | None:
        """cuda_inline: build in a CPU-only child (no GPU held), into the content-hash cache."""
        cfg = self.config
        job = Job(type="compile", backend="cuda_inline", source=source, device="cpu",
                  max_jobs=max(1, (os.cpu_count() or 2) // cfg.n_compile_workers()),
                  ext_cache=self.ext_cache, keep_paths=(self.ext_cache,), arch_list=_arch_list(),
                  isolation=cfg.isolation, limits=_limits(cfg, "cpu"))
        t0 = time.monotonic()
        with self._compile_slots:
            stages["compile_wait"] = time.monotonic() - t0
            t1 = time.monotonic()
            out = self.executor.run(job, cfg.compile_timeout_s, prepare=lambda d: _write_init(task, d))
        stages["compile"] = time.monotonic() - t1
        self.executor.release_dir(out.private_dir)
        if out.result is None:
            if out.timed_out:
                return verdicts.compile_error(
                    base, feedback=f"Compilation did not finish within {cfg.compile_timeout_s:.0f} s.")
            return C.crash_verdict(out, base, cfg.compile_timeout_s, compiled=False)
        if not out.result.get("ok"):
            out.result["stage"] = "compile"
            return V.verdict_from_failure(out.result, base)
        return None

    def _check_and_time(self, task, source, be, dev, gpu, stages, base, init_code=()) -> Verdict:
        """Holds a check slot from the reference outputs to the verdict, so at most `n_workers` candidates'
        trial tensors are in memory at once (on a GPU, more ran it out of memory)."""
        t1 = time.monotonic()
        with self._check_slots:
            stages["check_wait"] = time.monotonic() - t1
            return self._check_in_slot(task, source, be, dev, gpu, stages, base, init_code)

    def _check_in_slot(self, task, source, be, dev, gpu, stages, base, init_code=()) -> Verdict:
        """The check within the device's memory budget: in one round, or, when all trials at once would not
        fit (`memory_plan`), in rounds of fewer trials (two at least; one under KernelBench's rules), one child each, under one deadline; the
        first round is timed, every round must pass, the first that fails is the verdict."""
        plan, budget = self.planner.plan(task, dev, gpu), self.planner.budget(dev, gpu)
        oversized = plan.oversized(budget.capacity)
        if len(plan.rounds) == 1:
            with _held(budget, plan.cost(plan.rounds[0]), stages):
                return self._round(task, source, be, dev, gpu, stages, base, None, True, None, oversized,
                                   init_code)[0]
        stages["rounds"] = float(len(plan.rounds))
        deadline = time.monotonic() + _timeout(self.config, dev) * (1 + 0.25 * (len(plan.rounds) - 1))
        first, verdicts_, total = 0, [], sum(plan.rounds)
        for r, n in enumerate(plan.rounds):
            with _held(budget, plan.cost(n), stages):
                v, accepted = self._round(task, source, be, dev, gpu, stages, base, (n, first, total), r == 0,
                                          max(1.0, deadline - time.monotonic()), oversized, init_code)
            if v.status != "ok":
                return v
            verdicts_.append(v)
            first += accepted
        return V.merged_rounds(verdicts_, first, one_a_round=max(plan.rounds) < 2)

    def _round(self, task, source, be, dev, gpu, stages, base, part: tuple[int, int, int] | None, timed: bool,
               timeout: float | None, oversized: bool, init_code=()) -> tuple[Verdict, int]:
        """One child over the trials of ``part`` (count, first index, total; None: all), timed if ``timed``,
        within ``timeout`` (None: the configured one); the verdict and how many trials it judged. ``oversized``:
        the plan exceeds the budget, so a CUDA out-of-memory that comes back on the retry is the judge's."""
        cfg = self.config
        t0 = time.monotonic()
        prep = self._prepare(task, dev, gpu, base, part)
        stages["reference"] = stages.get("reference", 0.0) + time.monotonic() - t0
        if isinstance(prep, Verdict):
            return prep, 0
        if not prep.trials:
            return V.sandbox_error("no usable reference output for this task",
                                   f"every trial's reference output was degenerate ({prep.skipped} skipped)", base), 0
        timing = None
        if dev == "cuda" and timed:  # reference timings: measured beside the child's run, used for a correct one
            started = ref_timing.prefetch(task, gpu, prep, cfg, self._ref_times, self.gpus.lock(gpu).hold)
            if started is not None:
                self._prefetches.append(started)  # one per task and GPU; a finished thread holds nothing
            timing = TimingSettings(warmup=cfg.warmup, samples=cfg.timing_samples, flush_l2=cfg.flush_l2,
                                    kernel_fraction=cfg.kernel_fraction > 0, source=source,
                                    host_tolerance=cfg.host_clock_tolerance, host_slack_us=cfg.host_clock_slack_us)
        job = Job(type="check", backend=be, source=source, device=dev, gpu_visible=_physical(gpu),
                  init_code=tuple(init_code),
                  init_seed=V.INIT_SEED, poison_rechecks=cfg.poison_rechecks,
                  poison_bytes=cfg.poison_bytes, child_checks=cfg.child_checks,
                  fingerprint_trials=cfg.fingerprint_trials, timing=timing, compile_pass=cfg.compile_pass,
                  # the shared build cache is in the view of cuda_inline candidates only (none other builds)
                  ext_cache=self.ext_cache if be == "cuda_inline" else "",
                  keep_paths=(self.ext_cache,) if be == "cuda_inline" else (),
                  arch_list=_arch_list() if be == "cuda_inline" else "", isolation=cfg.isolation,
                  limits=_limits(cfg, dev), rules=getattr(cfg, "rules", "leap"),
                  compute_guard=dev == "cpu", allowed_ops=tuple(task.allowed_ops),
                  library_calls=task_library_calls(task) if dev == "cpu" and task.allowed_ops else None,
                  guard_nonce=secrets.randbelow(1 << 22) + 1)
        timeout = timeout or _timeout(cfg, dev)
        ex = self._executor_for(dev)
        t2 = time.monotonic()
        out, received = self._run_child(ex, job, prep, dev, gpu, stages, timeout)
        fault = C.harness_fault(out, dev)
        if fault:  # the judge's side failed (dead forkserver, OS kill, GPU short of memory...): once more
            ex.release_dir(out.private_dir)
            stages["harness_retries"] = 1.0
            out, received = self._run_child(ex, job, prep, dev, gpu, stages, timeout)
            # a second fault is judged as usual: harness failures and a dead forkserver -> sandbox_error;
            # a reproducible SIGKILL or CUDA out-of-memory, or killing the forkserver again, is the candidate's,
            # except an out-of-memory of a check planned beyond the judge's memory budget
            if oversized and C.harness_fault(out, dev) == "CUDA out of memory":
                ex.release_dir(out.private_dir)
                return V.sandbox_error("this task's trials do not fit the GPU memory the judge may use",
                                       f"planned {self.planner.plan(task, dev, gpu)} over the budget "
                                       f"{self.planner.budget(dev, gpu).capacity} bytes", base), 0
        stages["check"] = stages.get("check", 0.0) + time.monotonic() - t2

        def ref_times() -> tuple[float | None, float | None]:
            """The task's reference timings (memoised per task and GPU; the prefetch above has usually
            measured them by now); asked for only once a timed candidate is known to be correct."""
            t1 = time.monotonic()
            try:
                return ref_timing.reference_times(task, gpu, prep, cfg, self._ref_times, self.gpus.lock(gpu).hold)
            finally:
                stages["ref_timing"] = time.monotonic() - t1

        try:
            return self._judge(task, prep, out, ref_times, gpu, stages, base, timeout, received), len(prep.trials)
        finally:
            ex.release_dir(out.private_dir)

    def _prepare(self, task, dev: str, gpu: int | None, base: dict, part: tuple[int, int, int] | None = None):
        """Trial inputs and reference outputs (of ``part``: count, first index, total); a judge that cannot allocate
        them (host or GPU memory) tries once more after freeing its caches, then answers `sandbox_error`
        (never the candidate's fault)."""
        import gc

        import torch

        for attempt in (0, 1):
            try:
                with self.gpus.shared(gpu):
                    return V.prepare(task, dev, self.config, gpu, *(part or ()))
            except (MemoryError, RuntimeError) as exc:  # torch.OutOfMemoryError is a RuntimeError
                gc.collect()
                if torch.cuda.is_available():
                    torch.cuda.empty_cache()
                if attempt:
                    planned = f": {exc}" if isinstance(exc, HostRoomError) else ""  # sizes from the task's plan
                    return V.sandbox_error("the judge could not build this task's inputs or reference outputs"
                                           + planned, f"{type(exc).__name__}: {exc}", base)
        raise AssertionError("unreachable")

    def _run_child(self, ex: Executor, job: Job, prep, dev: str, gpu: int | None, stages: dict,
                   timeout: float) -> tuple[ChildOutcome, dict]:
        """One child for the check job: trial tensors out (CUDA IPC or files), GPU lock requests answered,
        output tensors received. Returns the outcome and what came back by IPC."""
        held: list[bool] = []  # the child's current hold on its GPU (exclusive?)
        ipc = self._ipc_for(dev, gpu, job)
        received: dict = {}
        job = dataclasses.replace(job, transport="ipc") if ipc is not None else job

        def on_message(msg: dict) -> dict | None:
            """The child asks for its GPU (shared for trial runs, exclusive for timing) or hands tensors back."""
            if msg.get("type") == "tensors" and ipc is not None:
                return _receive(msg, prep.device, received)
            if msg.get("type") == "lock" and gpu is not None and not held:
                exclusive = msg.get("mode", "exclusive") == "exclusive"
                t = time.monotonic()
                self.gpus.lock(gpu).acquire(exclusive)
                key = "lock_wait_exclusive" if exclusive else "lock_wait_shared"
                stages[key] = stages.get(key, 0.0) + time.monotonic() - t
                held.append(exclusive)
                return {"type": "granted"}
            if msg.get("type") == "unlock" and held:
                self.gpus.lock(gpu).release(held.pop())
            return None

        try:
            out = ex.run(job, timeout, on_message=on_message, prepare=lambda d: self._inputs(prep, d, ipc, gpu))
        finally:
            while held:
                self.gpus.lock(gpu).release(held.pop())
            if ipc is not None:
                with self.gpus.shared(gpu):  # cudaFree syncs the device: never during another's timing
                    ipc.free()
        return out, received

    def _inputs(self, prep, private_dir: str, ipc, gpu: int | None) -> dict:
        """Hand the trial inputs over; IPC copies run on the GPU, so never during another's timing."""
        if ipc is None:
            return V.write_inputs(prep, private_dir)
        with self.gpus.shared(gpu):
            return V.write_inputs(prep, private_dir, ipc)

    def _ipc_for(self, dev: str, gpu: int | None, job: Job):
        """A `cuda_ipc.Exported` when GPU tensors should travel by CUDA IPC for this candidate, else None.
        ``auto`` probes once per GPU through the real (isolated) pool and keeps files if the probe fails."""
        mode = self.config.transport
        if dev != "cuda" or mode == "files":
            return None
        from leap.sandbox.pool import cuda_ipc

        if mode == "auto":
            with self._probe_lock:  # one probe per GPU, the other candidates wait for its answer
                ok = self._ipc_ok.get(gpu)
                if ok is None:
                    ok = self._ipc_ok[gpu] = self._probe_ipc(gpu, job)
            if not ok:
                return None
        return cuda_ipc.Exported()

    def _probe_ipc(self, gpu: int | None, job: Job) -> bool:
        """Send a tensor to an isolated child by IPC and get it back doubled; False (files) on any failure."""
        import torch

        from leap.sandbox.pool import cuda_ipc

        if not cuda_ipc.available():
            return False
        device = f"cuda:{gpu or 0}"
        exp, received, err = cuda_ipc.Exported(), {}, ""
        ex = self._executor_for("cuda")
        try:
            x = torch.arange(4096, dtype=torch.float32, device=device) * 3
            probe = Job(type="ipc_probe", device="cuda", gpu_visible=job.gpu_visible, isolation=job.isolation,
                        limits=job.limits, record=freeze(exp.export(x)))
            out = ex.run(probe, 60.0,
                         on_message=lambda m: _receive(m, device, received) if m.get("type") == "tensors" else None)
            ex.release_dir(out.private_dir)
            got = received.get("probe")
            ok = bool(out.result and out.result.get("ok") and got is not None and torch.equal(got, x * 2))
            err = (out.result or {}).get("error") or ""
        except Exception as exc:  # noqa: BLE001 - any failure: files
            ok, err = False, f"{type(exc).__name__}: {exc}"
        finally:
            exp.free()
        if not ok:
            import warnings

            self.ipc_note = f"CUDA IPC probe failed, trial tensors travel as files: {err}"
            warnings.warn(self.ipc_note, stacklevel=2)
        return ok

    def _judge(self, task, prep, out: ChildOutcome, ref_times, gpu, stages, base, timeout, received=None) -> Verdict:
        for k, x in ((out.result or {}).get("stages") or {}).items():
            if isinstance(x, int | float):
                stages[f"child_{k}"] = float(x)
        stages.update({f"pool_{k}": x for k, x in out.phases.items()})
        v = self._judge_inner(task, prep, out, ref_times, gpu, stages, base, timeout, received)
        iso = (out.result or {}).get("isolation") or {}
        if isinstance(iso, dict):
            fallbacks = [f"{k}: {x}" for k, x in iso.items() if isinstance(x, str) and x.startswith("fallback")]
            if fallbacks:
                v.detail = (v.detail + "\nisolation fallbacks: " + "; ".join(fallbacks)).strip()
        return v

    def _judge_inner(self, task, prep, out: ChildOutcome, ref_times, gpu, stages, base, timeout,
                     received) -> Verdict:
        """``ref_times()`` measures or recalls the reference timings; it takes the GPU lock itself, so it
        is called outside the shared hold of the comparison."""
        cfg = self.config
        if out.result is None:
            return C.crash_verdict(out, base, timeout, compiled=True,
                                   first_correct=lambda path: V.first_output_correct(task, prep, path, out.private_dir,
                                                                                     cfg))
        if not out.result.get("ok"):
            full = C.scratch_full(out)
            if full is False:  # still full after the retry, and not by this candidate
                return V.sandbox_error("the judge's scratch space is full", str(out.result.get("error")), base)
            if full:
                return verdicts.runtime_error(base, compiled=True, feedback=(
                    "Runtime error: the solution filled the sandbox's scratch space (prints, warnings or files "
                    "in its directory), so its outputs could not be saved."), detail=str(out.result.get("error")))
            return V.verdict_from_failure(out.result, base)
        t0 = time.monotonic()
        with self.gpus.shared(gpu):
            bad, cmp = V.judge_outputs(task, prep, out.result, out.private_dir, cfg, base, received)
        stages["compare"] = time.monotonic() - t0
        if bad is not None:
            return bad
        n = prep.n_total
        timing = out.result.get("timing")
        if timing and isinstance(timing, dict) and "median_us" in timing:
            return V.timed_verdict(task, timing, ref_times(), cfg, base, cmp, n)
        fb = f"Correct on {n} trials" + (" (CPU interpreter; not timed)." if base.get("device") == "cpu" else ".")
        return verdicts.ok(base, trials=n, feedback=fb,
                           max_abs_error=cmp.max_abs_error if cmp else None,
                           max_rel_error=cmp.max_rel_error if cmp else None)


def _timeout(cfg: SandboxConfig, dev: str) -> float:
    return cfg.run_timeout_s if dev == "cuda" else cfg.cpu_run_timeout_s


@contextlib.contextmanager
def _held(budget, nbytes: int, stages: dict):
    """``budget.hold(nbytes)``, the wait recorded as the ``memory_wait`` stage."""
    t = time.monotonic()
    with budget.hold(nbytes):
        stages["memory_wait"] = stages.get("memory_wait", 0.0) + time.monotonic() - t
        yield


def _receive(msg: dict, device: str, received: dict) -> dict:
    """Judge side of a child's ``tensors`` message: map, copy and unmap each record, answer at once (the
    child frees its buffers after the answer). A malformed record is refused, never trusted."""
    from leap.sandbox.pool import cuda_ipc

    key, kind, items = msg.get("key"), msg.get("kind"), msg.get("items")
    try:
        if not isinstance(key, str) or kind not in ("tensor", "list", "tuple") or not isinstance(items, list) \
                or (kind == "tensor" and len(items) != 1) or len(items) > 64:
            raise cuda_ipc.IpcError("malformed tensors message")
        got = [cuda_ipc.receive(r, device) for r in items]
    except cuda_ipc.IpcError as exc:
        return {"type": "refused", "error": str(exc)[:300]}
    received[key] = got[0] if kind == "tensor" else (got if kind == "list" else tuple(got))
    return {"type": "received"}


def _write_init(task: Task, private_dir: str) -> dict:
    """Init inputs for a compile job (extensions built in ModelNew.__init__ need them)."""
    import torch

    module = J.load_task_module(task.source, task.name)
    path = os.path.join(private_dir, "init.pt")
    torch.save(list(J.init_inputs(module, V.INIT_SEED)), path)
    return {"init_file": path}


def _arch_list() -> str:
    env = os.environ.get("TORCH_CUDA_ARCH_LIST")
    if env:
        return env
    try:
        import torch

        if torch.cuda.is_available():
            major, minor = torch.cuda.get_device_capability(0)
            return f"{major}.{minor}"
    except Exception:  # noqa: BLE001
        pass
    return "9.0"


def _limits(cfg: SandboxConfig, device: str) -> Limits:
    gb = cfg.memory_limit_gb if device == "cpu" else cfg.gpu_host_memory_limit_gb
    if device == "cpu" and gb:  # the children together within the machine's memory (and so within a tmpfs
        gb = min(gb, max(MIN_CHILD_GB, 0.8 * _total_memory_gb() / cfg.n_workers("cpu")))  # scratch they fill)
    # CPU time: every core busy for the longest wall-clock limit, and a minute more (the judge's own kill
    # comes first; this bounds a candidate left running when nothing is left to kill it)
    longest = max(cfg.compile_timeout_s, _timeout(cfg, device))
    cpu = int(longest * (os.cpu_count() or 1)) + 60
    return Limits(memory_bytes=int(gb * (1 << 30)) if gb else None, drop_uid=cfg.drop_uid, cpu_seconds=cpu)


MIN_CHILD_GB = 4.0  # a CPU child (torch, triton and a candidate) runs in 3 GiB of address space


def _total_memory_gb() -> float:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / (1 << 30)
    except (ValueError, OSError):  # pragma: no cover - not Linux
        return 64.0


def _physical(gpu: int | None) -> str | None:
    """The CUDA_VISIBLE_DEVICES entry for the parent's GPU index (the child then sees it as cuda:0)."""
    if gpu is None:
        return None
    visible = [v.strip() for v in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",") if v.strip()]
    return visible[gpu] if gpu < len(visible) else str(gpu)

