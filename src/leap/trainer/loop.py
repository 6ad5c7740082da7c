"""`leap train`: the plain RL loop, in the spirit of nanochat's chat_rl.py.

    for step in steps:
        tasks   = sampler.tasks_for_step(step)              # deterministic data position
        groups  = rollouts.collect(tasks)                   # generate -> sandbox -> DCP -> feedback turns
        metrics = train_on_groups(policy, groups)           # tournament -> credit -> tokens -> loss -> step
        log(metrics); checkpoint every N steps or when a stop signal arrived

Everything heavy sits behind those calls: generation and verification in `leap.trainer.rollouts`
(the rollout package's episode runner with DCP as its continue hook), the algorithms in
`leap.algorithms`, the optimisation step in `leap.trainer.step`.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from pathlib import Path

from leap.algorithms.dcp import DCPStats, dcp_step_stats
from leap.progress import Progress
from leap.rollout.episode import PromptFn
from leap.rollout.policies.base import Policy
from leap.tasks.suite import iter_task_source
from leap.tasks.task import Task, TaskError
from leap.trainer.checkpoint import (
    StopFlag,
    load_checkpoint,
    resume_or_fresh,
    save_checkpoint,
    seed_everything,
)
from leap.trainer.config import ConfigError, RolloutConfig, TrainConfig, dump_config
from leap.trainer.distributed import Dist
from leap.trainer.logging import MetricsLogger, headline
from leap.trainer.metrics import rollout_metrics
from leap.trainer.model import PolicyModel, load_policy, resolve_device
from leap.trainer.optim import build_optimizer, build_scheduler
from leap.trainer.step import train_on_groups


def load_tasks(cfg: RolloutConfig) -> list[Task]:
    """The training tasks: ``rollout.tasks`` filtered by ``rollout.task_filter``, ``rollout.levels`` and the
    pass rates; one-line errors."""
    try:
        tasks = list(iter_task_source(cfg.tasks))
    except TaskError as exc:
        raise ConfigError(f"rollout.tasks: {exc}") from None
    if cfg.task_filter:
        names = {t.name for t in tasks}
        unknown = [n for n in cfg.task_filter if n not in names]
        if unknown:
            raise ConfigError(f"rollout.task_filter: {unknown[0]!r} is not a task of {cfg.tasks}")
        tasks = [t for t in tasks if t.name in set(cfg.task_filter)]
    if cfg.levels:
        tasks = [t for t in tasks if t.level in cfg.levels]
        if not tasks:
            raise ConfigError(f"rollout.levels: no task of {cfg.tasks} has level {' or '.join(map(str, cfg.levels))}")
    if cfg.pass_rate_file:
        from leap.tasks.harvest import filter_by_pass_rate, load_pass_rates

        try:
            rates = load_pass_rates(cfg.pass_rate_file)
        except TaskError as exc:
            raise ConfigError(f"rollout.pass_rate_file: {exc}") from None
        tasks = filter_by_pass_rate(tasks, rates, cfg.pass_rate_min, cfg.pass_rate_max)
        if not tasks:
            raise ConfigError(f"rollout.pass_rate_file: no task of {cfg.tasks} has {cfg.pass_rate_min} < pass rate "
                              f"< {cfg.pass_rate_max} in {cfg.pass_rate_file}")
    if not tasks:
        raise ConfigError(f"rollout.tasks: {cfg.tasks} holds no tasks")
    return tasks


class TaskSampler:
    """Epochs over the tasks in a seeded shuffled order; the data position is a function of the step,
    so a resumed run sees exactly the tasks the uninterrupted run would have seen."""

    def __init__(self, tasks: list[Task], per_step: int, seed: int, shard: int = 0, n_shards: int = 1):
        self.tasks, self.per_step, self.seed = tasks, per_step, seed
        self.shard, self.n_shards = shard, n_shards

    def position(self, step: int) -> int:
        return (step * self.n_shards + self.shard) * self.per_step

    def tasks_for_step(self, step: int) -> list[Task]:
        n, start = len(self.tasks), self.position(step)
        out = []
        for pos in range(start, start + self.per_step):
            epoch, i = divmod(pos, n)
            order = list(range(n))
            random.Random(self.seed * 1_000_003 + epoch).shuffle(order)
            out.append(self.tasks[order[i]])
        return out


def _report_samples(cfg: TrainConfig, step: int, groups, timing: dict) -> None:
    """rollouts/step-N.jsonl and the per-step status line (`leap.trainer.samples_log`)."""
    from leap.trainer.samples_log import rollout_rows, status_line, write_rollouts

    if not (cfg.logging.rollouts or cfg.logging.status_line):
        return
    rows = rollout_rows(step, groups, cfg)
    if cfg.logging.rollouts:
        write_rollouts(cfg.logging.dir, step, rows)
    if cfg.logging.status_line:
        print(status_line(step, rows, timing), flush=True)


def step_fits(elapsed: float, longest: float, budget: float | None) -> bool:
    """Whether one more step (as long as the longest so far) ends within ``budget`` seconds (None: no budget)."""
    return budget is None or elapsed + longest <= budget


def train(cfg: TrainConfig, *, resume: str | None = None, stop: StopFlag | None = None,
          verifier=None, policy: PolicyModel | None = None, tasks: list[Task] | None = None,
          sampler: Policy | None = None, prompt_fn: PromptFn | None = None,
          on_step: Callable[[int, dict, list], None] | None = None) -> dict:
    """Run ``cfg.steps`` RL steps (from a checkpoint if ``resume``); returns a summary of the last step.

    Injected parts (the demo uses them; each defaults to what ``cfg`` describes):
    ``verifier`` replaces the sandbox (``pairs -> verdicts``); ``policy`` the trained `PolicyModel`
    (else `load_policy(cfg.model)`); ``tasks`` the training tasks (else ``rollout.tasks``);
    ``sampler`` the rollout policy that generates (else HF generate over ``policy``); ``prompt_fn`` the
    context builder (else the rollout package's prompts); ``on_step(step, metrics, groups)`` sees every step.
    """
    from leap.trainer.rollouts import Rollouts

    stop = stop or StopFlag()
    dist = Dist(cfg.device)
    seed_everything(cfg.seed + dist.rank)
    device = dist.device(resolve_device(cfg.device))
    if policy is None:
        policy = load_policy(cfg.model, device, keep_reference=cfg.loss.kl_coef > 0)
    params = policy.trainable_parameters()
    optimizer = build_optimizer(params, cfg.optim)
    scheduler = build_scheduler(optimizer, cfg.optim, cfg.steps)
    data = TaskSampler(tasks if tasks is not None else load_tasks(cfg.rollout), cfg.rollout.tasks_per_step,
                       cfg.seed, shard=dist.rank, n_shards=dist.world)
    dcp_total, step = DCPStats(), 0
    resume = resume_or_fresh(resume)
    if resume:
        state = load_checkpoint(resume, policy=policy, optimizer=optimizer, scheduler=scheduler)
        step, dcp_total = int(state["step"]), DCPStats.from_dict(state.get("dcp", {}))
    ckpt_dir = Path(cfg.checkpoint.dir)
    logger = MetricsLogger(cfg.logging, run_name=cfg.run_name, config=cfg.model_dump(mode="json"),
                           resume_step=step if resume else None, enabled=dist.is_main)
    bar = Progress(cfg.steps, label="train", start=step, enabled=cfg.logging.progress and dist.is_main)
    metrics: dict = {}
    saved_at = step

    def checkpoint() -> None:
        nonlocal saved_at
        saved_at = step
        # RNG states are per process; rank 0's are saved (other ranks re-derive from the seed + rank)
        if dist.is_main:
            save_checkpoint(ckpt_dir, step, policy=policy, optimizer=optimizer, scheduler=scheduler,
                            state={"data_pos": data.position(step), "dcp": dcp_total.as_dict(),
                                   "last_metrics": metrics, "world_size": dist.world},
                            config_yaml=dump_config(cfg), keep_last=cfg.checkpoint.keep_last)
        dist.barrier()

    def stopping() -> bool:  # any process signalled -> all stop at the same step
        return dist.any(stop.requested, device)

    began, longest, out_of_time = time.perf_counter(), 0.0, False
    try:
        with Rollouts(policy, cfg, verifier=verifier, sampler=sampler, prompt_fn=prompt_fn) as rollouts:
            while step < cfg.steps and not stopping():
                if dist.any(not step_fits(time.perf_counter() - began, longest, cfg.time_budget_s), device):
                    out_of_time = True
                    break
                t0 = time.perf_counter()
                bar.stage(f"step {step + 1}: rollouts (generation + sandbox)")
                groups, timing = rollouts.collect(data.tasks_for_step(step), step=step)
                dcp = dcp_step_stats(groups, cfg.rollout.max_turns, cfg.dcp)
                dcp_total += dcp
                t1 = time.perf_counter()
                bar.stage(f"step {step + 1}: policy update")
                train_m = train_on_groups(policy, optimizer, scheduler, groups, cfg, device, params, dist)
                t2 = time.perf_counter()
                step += 1
                metrics = {**rollout_metrics(groups, cfg), **train_m,
                           "dcp/groups_expanded": dcp.groups_expanded, "dcp/expand_rate": dcp.expand_rate,
                           "dcp/evals_spent": dcp.evals_spent, "dcp/evals_saved": dcp.evals_saved,
                           "dcp/evals_all": dcp.evals_all, "dcp/total_evals_saved": dcp_total.evals_saved,
                           **{f"time/{k}": v for k, v in timing.items()},
                           "time/rollout": t1 - t0, "time/train": t2 - t1, "time/step": t2 - t0}
                longest = max(longest, t2 - t0)
                metrics = dist.gather_metrics({**metrics, "step/groups": len(groups)})
                if dist.enabled:  # ranks must hold identical weights after every step
                    metrics["dist/param_checksum_spread"] = dist.checksum_spread(params, device)
                logger.log(step, metrics)
                if dist.is_main:
                    _report_samples(cfg, step, groups, {**timing, "train": t2 - t1})
                bar.advance(1, headline(metrics))
                if on_step is not None:
                    on_step(step, metrics, groups)
                if (cfg.checkpoint.every and step % cfg.checkpoint.every == 0) or stopping():
                    bar.stage(f"step {step}: checkpoint")
                    checkpoint()
        if step != saved_at:  # the end of the run (a stop signal already saved above)
            checkpoint()
    finally:
        bar.close()
        logger.close()
    return {"step": step, "stopped": stop.requested, "signal": stop.signal_name, "out_of_time": out_of_time,
            "dcp": dcp_total.as_dict(), **{k: v for k, v in metrics.items() if not isinstance(v, dict)}}
