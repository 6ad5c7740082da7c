"""Token-level PPO-clip surrogate with optional k3 KL to a reference policy (DESIGN.md §5).

Per completion token: ratio r = exp(logp - old_logp), pg = -min(r*A, clip(r, 1-eps_low, 1+eps_high)*A);
with a reference, k3 = exp(ref - logp) - (ref - logp) - 1 is added times ``kl_coef``. Aggregation sums
over masked tokens and divides by ``denom``: the number of masked tokens ("token_mean") or
B * const_len ("constant", Dr. GRPO). Pass ``denom`` explicitly (the whole batch's value) when a batch is
split into micro-batches, so that the micro-batch losses add up to the full-batch loss.

All [B, L] tensors are aligned by token position (see `gather_logprobs`); masked positions contribute
exactly zero loss and zero gradient whatever values they hold.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from leap.algorithms.config import LossConfig


@dataclass
class LossOutputs:
    """``loss`` is differentiable; the rest are detached scalars for logging."""

    loss: Tensor           # scalar
    pg_loss: Tensor        # scalar, the clipped surrogate part
    kl: Tensor             # scalar, mean k3 KL(policy || ref) per token (0 without a reference)
    clip_fraction: Tensor  # scalar, fraction of tokens whose gradient the clip removed
    approx_kl: Tensor      # scalar, mean k3 KL(old || policy) per token (drift since sampling)
    ratio_mean: Tensor     # scalar
    ratio_max: Tensor      # scalar
    n_tokens: int

    def metrics(self) -> dict[str, float]:
        return {k: float(getattr(self, k).detach()) for k in
                ("loss", "pg_loss", "kl", "clip_fraction", "approx_kl", "ratio_mean", "ratio_max")}


def gather_logprobs(logits: Tensor, input_ids: Tensor, temperature: float = 1.0) -> Tensor:
    """log p(input_ids[:, p] | input_ids[:, :p]) as [B, L] from causal-LM logits [B, L, V]; column 0 is 0."""
    lg = logits[:, :-1].float()
    if temperature != 1.0:
        lg = lg / temperature
    tgt = input_ids[:, 1:].unsqueeze(-1)
    lp = lg.gather(-1, tgt).squeeze(-1) - torch.logsumexp(lg, dim=-1)
    return torch.cat([lp.new_zeros(lp.shape[0], 1), lp], dim=1)


def token_entropy(logits: Tensor) -> Tensor:
    """Entropy of the distribution that predicted each position, [B, L] aligned like `gather_logprobs`."""
    lg = logits[:, :-1].float()
    logp = torch.log_softmax(lg, dim=-1)
    h = -(logp.exp() * logp).sum(-1)
    return torch.cat([h.new_zeros(h.shape[0], 1), h], dim=1)


def _k3(log_r: Tensor) -> Tensor:
    """k3 = r - 1 - log r, the non-negative low-variance KL estimator."""
    return torch.expm1(log_r) - log_r


def policy_loss(logprobs: Tensor, old_logprobs: Tensor, advantages: Tensor, mask: Tensor,
                cfg: LossConfig | None = None, ref_logprobs: Tensor | None = None,
                denom: float | None = None) -> LossOutputs:
    """PPO-clip loss over [B, L] tensors; ``mask`` (bool [B, L]) marks the policy's completion tokens."""
    cfg = cfg or LossConfig()
    if cfg.kl_coef > 0 and ref_logprobs is None:
        raise ValueError("loss.kl_coef > 0 needs ref_logprobs (a reference forward pass)")
    m = mask.bool()
    mf = m.float()
    n = int(m.sum())
    if denom is None:
        if cfg.aggregation == "token_mean":
            denom = float(max(n, 1))
        else:
            denom = float(logprobs.shape[0] * (cfg.const_len or logprobs.shape[1]))
    zero = torch.zeros_like(logprobs)
    adv = torch.where(m, advantages.float(), zero)
    log_ratio = torch.where(m, logprobs - old_logprobs, zero)
    ratio = log_ratio.exp()
    clipped = ratio.clamp(1.0 - cfg.eps_low, 1.0 + cfg.eps_high)
    pg_tok = -torch.minimum(ratio * adv, clipped * adv)
    pg = (pg_tok * mf).sum() / denom
    loss = pg
    kl_mean = logprobs.new_zeros(())
    if ref_logprobs is not None:
        kl_tok = _k3(torch.where(m, ref_logprobs - logprobs, zero))
        if cfg.kl_coef > 0:
            loss = loss + cfg.kl_coef * (kl_tok * mf).sum() / denom
        kl_mean = (kl_tok.detach() * mf).sum() / max(n, 1)
    with torch.no_grad():
        r = ratio.detach()
        clip_hit = ((r > 1.0 + cfg.eps_high) & (adv > 0)) | ((r < 1.0 - cfg.eps_low) & (adv < 0))
        tokens = max(n, 1)
        out = LossOutputs(
            loss=loss, pg_loss=pg.detach(), kl=kl_mean,
            clip_fraction=(clip_hit & m).float().sum() / tokens,
            approx_kl=(_k3(log_ratio.detach()) * mf).sum() / tokens,
            ratio_mean=(r * mf).sum() / tokens,
            ratio_max=r[m].max() if n else r.new_ones(()),
            n_tokens=n)
    return out


__all__ = ["LossOutputs", "gather_logprobs", "policy_loss", "token_entropy"]
