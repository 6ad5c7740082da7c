"""One optimisation step on finished groups: credits -> per-token batch -> micro-batches -> loss -> step.

The algorithms (tournament / scalar advantages, turn credit, batch packing, PPO-clip loss) live in
`leap.algorithms`; this module only feeds them tensors from the policy and accumulates gradients.

Accumulation is exact: every micro-batch's loss is divided by the token count (``token_mean``) or the
constant normaliser (``constant``) of its whole optimizer batch, so ``micro_batch_size`` x
``grad_accumulation`` can be split any way without changing the update.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from leap.algorithms.advantages import TurnSample, build_batch, turn_samples
from leap.algorithms.credit import batch_credits
from leap.algorithms.loss import policy_loss
from leap.rollout.records import Group
from leap.trainer.config import TrainConfig
from leap.trainer.distributed import Dist
from leap.trainer.model import PolicyModel
from leap.trainer.optim import step_if_finite
from leap.trainer.tokens import token_logprobs


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _denominator(samples: Sequence[TurnSample], cfg: TrainConfig) -> float:
    if cfg.loss.aggregation == "token_mean":
        return float(max(1, sum(len(s.completion_ids) for s in samples)))
    const = cfg.loss.const_len or cfg.rollout.sampling.max_new_tokens
    return float(len(samples) * const)


def _forward(policy: PolicyModel, batch, temperature: float, *, entropy: bool = False):
    first = int(batch.loss_mask.float().argmax(dim=1).min()) if batch.n_tokens else 1
    return token_logprobs(policy.model, batch.input_ids, batch.attention_mask, first=first,
                          with_entropy=entropy, temperature=temperature)


def optimizer_batches(samples: list[TurnSample], cfg: TrainConfig) -> list[list[TurnSample]]:
    """Split samples into optimizer batches of ``micro_batch_size * grad_accumulation`` (0 = one batch)."""
    if cfg.optim.grad_accumulation == 0:
        return [samples]
    return _chunks(samples, cfg.optim.micro_batch_size * cfg.optim.grad_accumulation)


@torch.no_grad()
def _old_logprobs(policy: PolicyModel, micro: list, cfg: TrainConfig, device) -> list[torch.Tensor]:
    """Log-probs of the sampled tokens under the weights that sampled them (before any update)."""
    temp = cfg.rollout.sampling.temperature or 1.0
    return [_forward(policy, build_batch(m, _pad_id(policy)).to(device), temp)[0] for m in micro]


def _pad_id(policy: PolicyModel) -> int:
    pid = getattr(policy.tokenizer, "pad_token_id", None)
    return int(pid) if pid is not None else 0


def accumulate(policy: PolicyModel, samples: list[TurnSample], cfg: TrainConfig, device,
               old: list[torch.Tensor] | None = None, compare_sampler: bool = False) -> dict[str, float]:
    """Forward/backward ``samples`` (one optimizer batch) in micro-batches; gradients accumulate.

    ``old``: per-micro-batch old log-probs (multi-pass); None = on-policy (ratio 1, the same gradient).
    ``compare_sampler`` (weights not yet updated): also measure the generator's reported log-probs
    against the trainer's (``sampler/logprob_gap``; diagnostic only, never used in the loss).
    """
    micro = _chunks(samples, cfg.optim.micro_batch_size)
    denom = _denominator(samples, cfg)
    temp = cfg.rollout.sampling.temperature or 1.0
    sums = {"loss": 0.0, "pg_loss": 0.0}
    weighted = {"kl": 0.0, "clip_fraction": 0.0, "approx_kl": 0.0, "entropy": 0.0}
    ratio_max, n_tok = 1.0, 0
    gap, gap_tok = 0.0, 0
    for k, m in enumerate(micro):
        batch = build_batch(m, _pad_id(policy)).to(device)
        logp, ent = _forward(policy, batch, temp, entropy=True)
        ref = None
        if cfg.loss.kl_coef > 0:
            with torch.no_grad(), policy.reference_mode() as ref_model:
                ref = token_logprobs(ref_model, batch.input_ids, batch.attention_mask, temperature=temp)[0]
        old_lp = old[k] if old is not None else logp.detach()
        out = policy_loss(logp, old_lp, batch.advantages, batch.loss_mask, cfg.loss, ref_logprobs=ref,
                          denom=denom)
        out.loss.backward()
        n = out.n_tokens
        n_tok += n
        sums["loss"] += float(out.loss.detach())
        sums["pg_loss"] += float(out.pg_loss)
        mf = batch.loss_mask.float()
        weighted["entropy"] += float((ent * mf).sum())
        if compare_sampler and batch.old_logprobs is not None:
            gap += float(((logp.detach() - batch.old_logprobs).abs() * mf).sum())
            gap_tok += n
        for key in ("kl", "clip_fraction", "approx_kl"):
            weighted[key] += float(getattr(out, key)) * n
        ratio_max = max(ratio_max, float(out.ratio_max))
    metrics = dict(sums)
    metrics.update({k: v / max(1, n_tok) for k, v in weighted.items()})
    metrics.update({"ratio_max": ratio_max, "train_tokens": n_tok, "train_samples": len(samples)})
    if gap_tok:
        metrics["sampler/logprob_gap"] = gap / gap_tok
    return metrics


def train_on_groups(policy: PolicyModel, optimizer, scheduler, groups: Sequence[Group], cfg: TrainConfig,
                    device, params: list[torch.nn.Parameter] | None = None,
                    dist: Dist | None = None) -> dict[str, float]:
    """Credits -> samples -> ``passes_per_batch`` passes of optimizer steps. Returns averaged metrics.

    ``dist`` (data parallel): gradients are averaged across processes before each optimizer step, and
    every process runs as many optimizer steps as the busiest one (extra ones with zero gradients).
    """
    params = params if params is not None else policy.trainable_parameters()
    credits = batch_credits(groups, cfg.reward, cfg.credit)
    samples = turn_samples(groups, credits)
    if cfg.optim.skip_zero_advantage and cfg.loss.kl_coef == 0:
        samples = [s for s in samples if s.advantage != 0]
    dist = dist or Dist()
    batches = optimizer_batches(samples, cfg) if samples else []
    n_batches = dist.max_int(len(batches), torch.device(device))
    if n_batches == 0:
        return {"train_samples": 0}
    olds = None
    if cfg.optim.passes_per_batch > 1:
        olds = [_old_logprobs(policy, _chunks(b, cfg.optim.micro_batch_size), cfg, device) for b in batches]
    policy.model.train()
    rows: list[dict[str, float]] = []
    sampler_gap = None
    for p in range(cfg.optim.passes_per_batch):
        for bi in range(n_batches):
            optimizer.zero_grad(set_to_none=True)
            m = None
            if bi < len(batches):
                m = accumulate(policy, batches[bi], cfg, device, olds[bi] if olds else None,
                               compare_sampler=p == 0 and bi == 0)
                sampler_gap = m.pop("sampler/logprob_gap", sampler_gap)
            dist.average_gradients(params)
            grad_norm = step_if_finite(optimizer, params, cfg.optim.grad_clip)
            if m is not None:
                m["grad_norm"] = grad_norm
                rows.append(m)
    scheduler.step()
    if not rows:
        return {"train_samples": 0, "lr": scheduler.get_last_lr()[0]}
    out = {k: sum(r[k] for r in rows) / len(rows) for k in rows[0]}
    out["ratio_max"] = max(r["ratio_max"] for r in rows)
    out["train_tokens"] = sum(r["train_tokens"] for r in rows) / cfg.optim.passes_per_batch
    out["optimizer_steps"] = len(rows)
    out["lr"] = scheduler.get_last_lr()[0]
    adv = [s.advantage for s in samples]
    if sampler_gap is not None:
        out["sampler/logprob_gap"] = sampler_gap
    out["adv/sample_mean"] = sum(adv) / len(adv)
    out["adv/sample_abs_mean"] = sum(abs(a) for a in adv) / len(adv)
    return out
