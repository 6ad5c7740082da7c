"""Per-token advantages and masks for multi-turn samples.

Each turn is one sample: its prompt ids (the context the policy saw, feedback included) followed by its
completion ids (what the policy wrote). `build_batch` pads them into [B, L] tensors whose ``loss_mask`` is
true on exactly the completion tokens; the sample's advantage is spread over those tokens.

Alignment: every [B, L] tensor is indexed by token position; ``old_logprobs[b, p]`` is the log-prob of
``input_ids[b, p]`` given the tokens before it (see `leap.algorithms.loss.gather_logprobs`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from leap.algorithms.credit import Credits
from leap.rollout.records import Group


@dataclass
class TurnSample:
    """One training sample: a turn's prompt and completion token ids and its advantage."""

    prompt_ids: list[int]
    completion_ids: list[int]
    advantage: float
    old_logprobs: list[float] | None = None  # one per completion token (the sampler's), if known
    group: int = 0
    traj: int = 0
    turn: int = 0


@dataclass
class PackedBatch:
    """Padded tensors for one (micro-)batch; shapes are [B, L]."""

    input_ids: Tensor       # long [B, L]
    attention_mask: Tensor  # long [B, L], 1 on real tokens
    position_ids: Tensor    # long [B, L], 0.. over real tokens (works for either padding side)
    loss_mask: Tensor       # bool [B, L], True exactly on completion tokens
    advantages: Tensor      # float32 [B, L], the sample's advantage on completion tokens, 0 elsewhere
    old_logprobs: Tensor | None  # float32 [B, L], 0 outside completion tokens; None if any sample lacks them

    @property
    def n_tokens(self) -> int:
        return int(self.loss_mask.sum())

    def to(self, device: torch.device | str) -> PackedBatch:
        move = {k: (v.to(device) if isinstance(v, Tensor) else v) for k, v in self.__dict__.items()}
        return PackedBatch(**move)


def turn_samples(groups: Sequence[Group], credits: Sequence[Credits], drop_zero: bool = False) -> list[TurnSample]:
    """One `TurnSample` per turn of every trajectory; ``credits[g][i][t]`` is turn t's advantage.

    Raises ValueError (one line) when a turn lacks token ids or the credits do not match the groups.
    ``drop_zero`` skips samples whose advantage is exactly 0 (they add no policy gradient).
    """
    if len(groups) != len(credits):
        raise ValueError(f"credits: expected {len(groups)} groups, got {len(credits)}")
    out: list[TurnSample] = []
    for gi, (g, cg) in enumerate(zip(groups, credits, strict=True)):
        if len(cg) != g.size:
            raise ValueError(f"credits[{gi}] ({g.task}): expected {g.size} trajectories, got {len(cg)}")
        for i, (tr, ct) in enumerate(zip(g.trajectories, cg, strict=True)):
            if len(ct) != len(tr.turns):
                raise ValueError(f"credits[{gi}][{i}] ({g.task}): expected {len(tr.turns)} turns, got {len(ct)}")
            for turn, a in zip(tr.turns, ct, strict=True):
                if turn.prompt_ids is None or turn.completion_ids is None:
                    raise ValueError(f"group {gi} ({g.task}) sample {tr.sample} turn {turn.index + 1}: "
                                     "prompt_ids/completion_ids missing (tokenise the turn first)")
                if drop_zero and a == 0.0:
                    continue
                out.append(TurnSample(list(turn.prompt_ids), list(turn.completion_ids), float(a),
                                      turn.completion_logprobs, gi, i, turn.index))
    return out


def _fit(s: TurnSample, max_len: int | None) -> tuple[list[int], list[int], list[float] | None]:
    """Drop prompt tokens from the left (then completion tokens from the right) to fit ``max_len``.

    At least one prompt token is kept: position 0 has no prediction, so it never carries loss.
    """
    p, c, lp = s.prompt_ids, s.completion_ids, s.old_logprobs
    if lp is not None and len(lp) != len(c):
        raise ValueError(f"sample (group {s.group}, traj {s.traj}, turn {s.turn}): "
                         f"{len(lp)} old_logprobs for {len(c)} completion tokens")
    if not p:
        raise ValueError(f"sample (group {s.group}, traj {s.traj}, turn {s.turn}): empty prompt_ids "
                         "(the first completion token needs a context token to be scored)")
    if max_len is not None and len(p) + len(c) > max_len:
        if max_len < 2:
            raise ValueError(f"max_len: expected >= 2, got {max_len}")
        c = c[:max_len - 1]
        lp = lp[:max_len - 1] if lp is not None else None
        p = p[len(p) - (max_len - len(c)):]
    return p, c, lp


def build_batch(samples: Sequence[TurnSample], pad_id: int, max_len: int | None = None,
                padding_side: str = "right", pad_to_multiple: int = 1) -> PackedBatch:
    """Pad samples into a `PackedBatch` (see module docstring for the alignment)."""
    if not samples:
        raise ValueError("build_batch: no samples")
    if padding_side not in ("right", "left"):
        raise ValueError(f"padding_side: expected 'right' or 'left', got {padding_side!r}")
    fitted = [_fit(s, max_len) for s in samples]
    length = max(len(p) + len(c) for p, c, _ in fitted)
    length = -(-length // pad_to_multiple) * pad_to_multiple
    b = len(samples)
    ids = torch.full((b, length), pad_id, dtype=torch.long)
    attn = torch.zeros((b, length), dtype=torch.long)
    mask = torch.zeros((b, length), dtype=torch.bool)
    adv = torch.zeros((b, length), dtype=torch.float32)
    have_lp = all(lp is not None for _, _, lp in fitted)
    old = torch.zeros((b, length), dtype=torch.float32) if have_lp else None
    for row, (s, (p, c, lp)) in enumerate(zip(samples, fitted, strict=True)):
        n = len(p) + len(c)
        start = 0 if padding_side == "right" else length - n
        ids[row, start:start + n] = torch.tensor(p + c, dtype=torch.long)
        attn[row, start:start + n] = 1
        cs = start + len(p)
        mask[row, cs:cs + len(c)] = True
        adv[row, cs:cs + len(c)] = s.advantage
        if old is not None and c:
            old[row, cs:cs + len(c)] = torch.tensor(lp, dtype=torch.float32)
    pos = (attn.cumsum(-1) - 1).clamp(min=0)
    return PackedBatch(ids, attn, pos, mask, adv, old)


__all__ = ["PackedBatch", "TurnSample", "build_batch", "turn_samples"]
