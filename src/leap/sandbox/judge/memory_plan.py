"""How much device memory one candidate's check takes, and how the judge fits it: a byte budget per device
that concurrent checks draw from, and trials split into rounds when all of them at once would not fit.

KernelBench's level-1 inputs run to 6-16 GiB a tensor. A check holds each trial's inputs several times over
(the judge's trial and the clone its reference runs on, the reference output, the IPC copy; in the child
the received inputs, the output, the poison re-run's output, the inputs after the run, and the copies
handed back): with 5 trials and 8 candidates at once an H200 ran out of memory on most of them. The plan
comes from the task's meta-device shapes (nothing allocated); the budget makes checks wait for room
instead of failing, and a check too big for the budget runs with the budget to itself.
"""

from __future__ import annotations

import collections
import math
import threading
import types
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from leap.sandbox.judge.task_module import meta_bytes

# live copies of a trial's inputs and of its outputs during a check (judge and child together; see above)
TRIAL_COPIES = 6
MODEL_COPIES = 2  # the judge's reference model and the candidate's
MIN_PER_ROUND = 2


@dataclass(frozen=True)
class CheckPlan:
    """The planned bytes of one check: ``fixed`` (weights, the child's poison block) plus ``per_trial`` for
    each trial held at once; ``rounds`` are the trial counts run one child after another."""

    fixed: int
    per_trial: int
    rounds: tuple[int, ...]

    def cost(self, n: int) -> int:
        return self.fixed + n * self.per_trial

    def oversized(self, capacity: int | None) -> bool:
        """Whether even the smallest round is planned beyond ``capacity`` (it runs alone and may not fit)."""
        return bool(capacity) and self.cost(min(self.rounds)) > capacity


def plan_rounds(n_trials: int, per_trial: int, fixed: int, capacity: int | None,
                min_per_round: int = MIN_PER_ROUND) -> tuple[int, ...]:
    """Trial counts per round, as few rounds as fit ``capacity`` (all in one round when the capacity is
    unknown or everything fits). Pure.

    Every round holds at least `MIN_PER_ROUND` trials: the child's checks that compare calls across trials (the
    input rotation through the same buffers, stale outputs after N calls) need two input sets in one child. A
    round short of that gets another trial rather than a bigger neighbour: 5 trials at 2 a round are
    (2, 2, 2), one more trial than asked, each round within the plan. KernelBench's rules (which make no
    cross-trial checks) pass ``min_per_round=1``: a task whose two trials do not fit then runs one a round."""
    n_trials, least = max(1, n_trials), max(1, min_per_round)
    if not capacity or per_trial <= 0 or n_trials < 2 * least or fixed + n_trials * per_trial <= capacity:
        return (n_trials,)
    fit = (capacity - fixed) // per_trial if capacity > fixed else 0
    per_round = max(least, min(fit, n_trials))
    n_rounds = math.ceil(n_trials / per_round)
    base, extra = divmod(n_trials, n_rounds)  # even rounds: 5 trials at 3 a round -> (3, 2)
    return tuple(max(least, base + (1 if i < extra else 0)) for i in range(n_rounds))


def _out_bytes(module: types.ModuleType, init_inputs: list[Any], small: bool) -> int | None:
    """The reference's output bytes, from a forward on the meta device (None when it cannot run there)."""
    from leap.sandbox.judge.task_module import get_inputs

    def outputs():
        model = module.Model(*init_inputs)
        out = model(*get_inputs(module, small))
        return [out] if isinstance(out, torch.Tensor) else list(out) if isinstance(out, list | tuple) else []

    return meta_bytes(outputs, lock=False)  # a slow meta forward (an LSTM's steps) must not stall seeded draws


def plan_sizes(module: types.ModuleType, init_inputs: list[Any], small: bool, poison_bytes: int = 0) -> tuple[int, int]:
    """(fixed, per_trial) bytes of one check of the task; unknown sizes (inputs that cannot be planned on
    the meta device) plan as zero, so the check runs in one round as before."""
    from leap.sandbox.judge.inputs import planned_bytes
    from leap.sandbox.judge.task_module import planned_model_bytes

    ins = planned_bytes(module, small) or 0
    outs = _out_bytes(module, init_inputs, small)
    outs = ins if outs is None else outs  # an elementwise guess where the forward cannot run on meta
    weights = planned_model_bytes(module, init_inputs) or 0
    return MODEL_COPIES * weights + poison_bytes, TRIAL_COPIES * (ins + outs)


class Planner:
    """The scheduler's plans and budgets: a task's sizes are planned once per device kind (a slow meta forward
    runs once, other candidates of the task wait for it), its rounds follow from the device's budget. A task
    that cannot be planned runs in one round, and is planned again next time (nothing wrong is memoised)."""

    def __init__(self, config):
        self.config = config
        self._sizes: dict = {}
        self._locks: dict = {}
        self._budgets: dict = {}
        self._mu = threading.Lock()

    def budget(self, dev: str, gpu: int | None) -> MemoryBudget:
        with self._mu:
            b = self._budgets.get((dev, gpu))
            if b is None:
                cfg = self.config
                b = self._budgets[(dev, gpu)] = MemoryBudget(device_capacity(dev, gpu, cfg.judge_memory_share,
                                                                              cfg.judge_memory_gib))
            return b

    def plan(self, task, dev: str, gpu: int | None) -> CheckPlan:
        from leap.sandbox.judge.task_module import init_inputs, load_task_module
        from leap.sandbox.judge.verifier import INIT_SEED

        cfg = self.config
        capacity = self.budget(dev, gpu).capacity
        key = (task.name, task.source_hash, dev)
        with self._mu:
            lock = self._locks.setdefault(key, threading.Lock())
        with lock:
            sizes = self._sizes.get(key)
            if sizes is None:
                try:
                    module = load_task_module(task.source, task.name)
                    sizes = plan_sizes(module, list(init_inputs(module, INIT_SEED)), dev == "cpu",
                                       cfg.poison_bytes if dev == "cuda" else 0)
                except Exception:  # noqa: BLE001 - the check itself meets (and reports) what broke the plan
                    return CheckPlan(0, 0, (cfg.trials,))
                self._sizes[key] = sizes
        fixed, per_trial = sizes
        least = 1 if cfg.rules == "kernelbench" else MIN_PER_ROUND  # KernelBench compares no trials across calls
        return CheckPlan(fixed, per_trial, plan_rounds(cfg.trials, per_trial, fixed, capacity, least))


class MemoryBudget:
    """A byte semaphore per device: a check holds its planned bytes while its tensors are alive, served in
    arrival order (a big request is not starved by a stream of small ones). A request above the capacity
    waits until nothing else is held, then runs alone; if it still does not fit, the judge answers
    ``sandbox_error`` (`CheckPlan.oversized`), never blames the candidate."""

    def __init__(self, capacity: int | None):
        self.capacity = capacity
        self._held = 0
        self._queue: collections.deque = collections.deque()
        self._cond = threading.Condition()

    @contextmanager
    def hold(self, nbytes: int):
        """Hold ``nbytes`` (at most the capacity) for the ``with`` block, waiting for its turn and for room."""
        if not self.capacity or nbytes <= 0:
            yield
            return
        need = min(nbytes, self.capacity)
        ticket = object()
        with self._cond:
            self._queue.append(ticket)
            try:
                self._cond.wait_for(lambda: self._queue[0] is ticket and self._held + need <= self.capacity)
            finally:
                self._queue.remove(ticket)
                self._cond.notify_all()
            self._held += need
        try:
            yield
        finally:
            with self._cond:
                self._held -= need
                self._cond.notify_all()

    @property
    def held(self) -> int:
        return self._held


def device_capacity(device: str, gpu: int | None, share: float, explicit_gib: float | None) -> int | None:
    """The budget's bytes: ``explicit_gib`` when set, else ``share`` of the GPU's total memory (CUDA) or of
    the host's available memory (CPU); None where unknown (no budget)."""
    if explicit_gib is not None:
        return int(explicit_gib * 2**30)
    if device == "cuda":
        try:
            return int(share * torch.cuda.get_device_properties(gpu or 0).total_memory)
        except (RuntimeError, AssertionError):
            return None
    from leap.sandbox.judge.task_module import host_available_bytes

    avail = host_available_bytes()
    return int(share * avail) if avail else None
