"""Optimizer and learning-rate schedule from `OptimConfig`."""

from __future__ import annotations

import math

import torch

from leap.trainer.config import OptimConfig


def build_optimizer(params: list[torch.nn.Parameter], cfg: OptimConfig) -> torch.optim.Optimizer:
    """AdamW over the trainable parameters (fused on CUDA when available)."""
    if not params:
        raise ValueError("no trainable parameters (check model.finetune and model.lora.targets)")
    kwargs = {}
    if all(p.is_cuda for p in params):
        kwargs["fused"] = True
    return torch.optim.AdamW(params, lr=cfg.lr, betas=cfg.betas, weight_decay=cfg.weight_decay, **kwargs)


def build_scheduler(optimizer: torch.optim.Optimizer, cfg: OptimConfig,
                    total_steps: int) -> torch.optim.lr_scheduler.LambdaLR:
    """Linear warm-up, then constant / linear decay / cosine decay to zero over ``total_steps``."""
    warmup, total = cfg.warmup_steps, max(1, total_steps)

    def factor(step: int) -> float:
        if warmup and step < warmup:
            return (step + 1) / warmup
        if cfg.schedule == "constant":
            return 1.0
        progress = min(1.0, (step - warmup) / max(1, total - warmup))
        if cfg.schedule == "linear":
            return 1.0 - progress
        return 0.5 * (1.0 + math.cos(math.pi * progress))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def clip_grad(params: list[torch.nn.Parameter], max_norm: float) -> float:
    """Clip the global gradient norm (``max_norm`` 0 = measure only); returns the norm before clipping."""
    grads = [p for p in params if p.grad is not None]
    if not grads:
        return 0.0
    limit = max_norm if max_norm > 0 else float("inf")
    return float(torch.nn.utils.clip_grad_norm_(grads, limit))


def step_if_finite(optimizer: torch.optim.Optimizer, params: list[torch.nn.Parameter], max_norm: float) -> float:
    """Clip and take the optimizer step, unless the gradient norm is inf/NaN: then the gradients are dropped
    and the step skipped (one bf16 overflow would otherwise turn every weight NaN). Returns the norm."""
    norm = clip_grad(params, max_norm)
    if math.isfinite(norm):
        optimizer.step()
    else:
        optimizer.zero_grad(set_to_none=True)
    return norm
