"""Data parallelism for `accelerate launch` (one process per GPU), kept explicit and small.

Each process samples its own share of groups and verifies them on its own GPU. After a process has
accumulated the gradients of an optimizer batch, they are averaged across processes with one
all-reduce (no DDP wrapper: ranks hold different numbers of samples, since DCP expands different
groups, and DDP would need matched backward calls). Ranks with fewer optimizer batches in a step
contribute zero gradients to the extra all-reduces, so every rank runs the same collectives.
Single-process runs skip all of this.
"""

from __future__ import annotations

import os

import torch


class Dist:
    """Process-group facts and the few collectives the loop needs (no-ops in a single process)."""

    def __init__(self, device: str = "auto"):
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.rank, self.state = 0, None
        if self.world > 1:
            from accelerate import PartialState

            self.state = PartialState(cpu=device == "cpu")
            self.rank, self.world = self.state.process_index, self.state.num_processes

    @property
    def enabled(self) -> bool:
        return self.world > 1

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def device(self, fallback: torch.device) -> torch.device:
        return self.state.device if self.state is not None else fallback

    def max_int(self, value: int, device: torch.device) -> int:
        if not self.enabled:
            return value
        t = torch.tensor([value], device=device)
        torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MAX)
        return int(t.item())

    def any(self, flag: bool, device: torch.device) -> bool:
        return bool(self.max_int(int(flag), device))

    def average_gradients(self, params: list[torch.nn.Parameter]) -> None:
        """Average ``.grad`` over processes (missing grads count as zeros)."""
        if not self.enabled:
            return
        for p in params:
            if p.grad is None:
                p.grad = torch.zeros_like(p)
        for p in params:  # one collective per tensor: no full-size flat copy (matters for full FT)
            torch.distributed.all_reduce(p.grad)
            p.grad.div_(self.world)

    def barrier(self) -> None:
        if self.enabled:
            torch.distributed.barrier()

    def checksum_spread(self, params: list[torch.nn.Parameter], device: torch.device) -> float:
        """Max minus min over ranks of a float64 checksum of ``params`` (0.0 when all ranks agree)."""
        if not self.enabled:
            return 0.0
        with torch.no_grad():
            c = sum(float(p.detach().double().sum()) + float(p.detach().double().abs().sum()) for p in params)
        t = torch.tensor([c, -c], dtype=torch.float64, device=device)
        torch.distributed.all_reduce(t, op=torch.distributed.ReduceOp.MAX)
        return float(t[0] + t[1])

    def gather_metrics(self, metrics: dict) -> dict:
        """Every rank's step metrics merged (the same on all ranks): counts (``SUMMED``) add up, every
        other number is the mean over the ranks that reported it; adds ``dist/world_size``."""
        if not self.enabled:
            return metrics
        per_rank: list = [None] * self.world
        torch.distributed.all_gather_object(per_rank, metrics)
        return merge_metrics(per_rank)


SUMMED = ("step/groups", "dcp/groups_expanded", "dcp/evals_spent", "dcp/evals_saved", "dcp/evals_all", "dcp/total_evals_saved")


def merge_metrics(per_rank: list[dict]) -> dict:
    """Pure merge of per-rank metric dicts (see `Dist.gather_metrics`); non-numbers come from rank 0."""
    out: dict = dict(per_rank[0])
    keys = {k for m in per_rank for k, v in m.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    for k in keys:
        vals = [float(m[k]) for m in per_rank if isinstance(m.get(k), (int, float))]
        out[k] = sum(vals) if k in SUMMED else sum(vals) / len(vals)
    out["dist/world_size"] = len(per_rank)
    return out


def rank_gpus(configured: list[int] | None) -> list[int] | None:
    """The GPUs a rank's sandbox verifies on: ``configured`` if set; under a distributed launch
    (``WORLD_SIZE`` > 1) the rank's own local GPU, so ranks never time on each other's devices;
    otherwise None (the sandbox default: every visible GPU)."""
    if configured is not None or int(os.environ.get("WORLD_SIZE", "1")) <= 1:
        return configured
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if not n:
        return None
    return [int(os.environ.get("LOCAL_RANK", "0")) % n]
