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
