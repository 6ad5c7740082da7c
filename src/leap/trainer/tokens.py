"""Token-level forward helpers shared by RL and SFT: per-token log-probabilities and entropy."""

from __future__ import annotations

import torch


def token_logprobs(model: torch.nn.Module, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                   *, first: int = 1, with_entropy: bool = False, temperature: float = 1.0
                   ) -> tuple[torch.Tensor, torch.Tensor | None]:
    """Log-probability of each token given its prefix.

    input_ids, attention_mask: [B, T], right-padded. Returns logprobs [B, T]: position t scores
    ``input_ids[:, t]`` from the logits at t-1. Only positions ``>= first`` are computed (pass the
    earliest completion position so long prompts cost no vocabulary-sized logits); earlier positions
    hold 0. With ``with_entropy`` also returns the policy's (detached) entropy at the same positions.
    Padded positions hold junk and must be masked by the caller.
    """
    from leap.algorithms.loss import gather_logprobs, token_entropy

    b, t = input_ids.shape
    first = max(1, min(first, t - 1)) if t > 1 else 1
    keep = t - first + 1
    try:
        out = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False, logits_to_keep=keep)
    except TypeError:  # models without logits_to_keep
        out = model(input_ids=input_ids, attention_mask=attention_mask, use_cache=False)
    logits = out.logits[:, -keep:]  # positions first-1 .. t-1
    ids = input_ids[:, first - 1:]
    lead = torch.zeros(b, first - 1, device=input_ids.device)
    # row by row, so only one float copy of [T, V] logits exists at a time
    lp = torch.cat([gather_logprobs(logits[i:i + 1], ids[i:i + 1], temperature) for i in range(b)])
    ent = None
    if with_entropy:
        with torch.no_grad():
            scaled = logits / temperature if temperature != 1.0 else logits
            ent = torch.cat([lead, torch.cat([token_entropy(scaled[i:i + 1]) for i in range(b)])], dim=1)
    return torch.cat([lead, lp], dim=1), ent


def pad_right(seqs: list[list[int]], pad_id: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Right-pad token lists into ``(ids [B, T], attention_mask [B, T])``."""
    width = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(seqs), width), dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, : len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, : len(s)] = 1
    return ids, mask
