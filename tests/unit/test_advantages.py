"""Per-token advantages and masks: the loss mask covers exactly the policy's own completion tokens."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from leap.algorithms import group_credits
from leap.algorithms.advantages import TurnSample, build_batch, turn_samples
from leap.rollout.records import Group, Trajectory, Turn
from leap.sandbox.judge.verdict import Verdict

PAD = 0
# prompt/feedback ids live in [1000, 2000), completion ids in [2000, 3000): a mask error shows at once
_prompt = st.lists(st.integers(1000, 1999), min_size=1, max_size=12)
_completion = st.lists(st.integers(2000, 2999), min_size=0, max_size=12)
_sample = st.builds(lambda p, c, a: TurnSample(p, c, a, [-(i + 1) / 10 for i in range(len(c))]),
                    _prompt, _completion, st.floats(-1, 1))


@given(st.lists(_sample, min_size=1, max_size=6), st.sampled_from(["right", "left"]), st.integers(1, 8))
@settings(max_examples=150, deadline=None)
def test_mask_covers_exactly_the_completion_tokens(samples, side, multiple):
    b = build_batch(samples, PAD, padding_side=side, pad_to_multiple=multiple)
    assert b.input_ids.shape[1] % multiple == 0
    for row, s in enumerate(samples):
        ids, m = b.input_ids[row], b.loss_mask[row]
        assert ids[m].tolist() == s.completion_ids                      # exactly, in order
        assert ids[b.attention_mask[row].bool()].tolist() == s.prompt_ids + s.completion_ids
        assert not bool(((ids >= 1000) & (ids < 2000) & m).any())         # no prompt/feedback token
        assert not bool((b.attention_mask[row] == 0)[m].any())           # no padding
        assert torch.all(b.advantages[row][m] == torch.tensor(s.advantage, dtype=torch.float32))
        assert torch.all(b.advantages[row][~m] == 0)
        assert b.old_logprobs[row][m].tolist() == pytest.approx([-(i + 1) / 10 for i in range(len(s.completion_ids))])
        real = b.attention_mask[row].bool()
        assert b.position_ids[row][real].tolist() == list(range(int(real.sum())))
    assert b.n_tokens == sum(len(s.completion_ids) for s in samples)


def test_truncation_keeps_completion_and_one_context_token():
    s = TurnSample([1001, 1002, 1003, 1004], [2001, 2002, 2003], 0.5)
    b = build_batch([s], PAD, max_len=5)
    assert b.input_ids[0].tolist() == [1003, 1004, 2001, 2002, 2003]
    b = build_batch([s], PAD, max_len=3)
    assert b.input_ids[0].tolist() == [1004, 2001, 2002] and b.loss_mask[0].tolist() == [False, True, True]
    assert build_batch([s, TurnSample([1], [2], 0.0)], PAD).old_logprobs is None


def test_bad_samples_give_clear_errors():
    with pytest.raises(ValueError, match="empty prompt_ids"):
        build_batch([TurnSample([], [2001], 1.0)], PAD)
    with pytest.raises(ValueError, match="old_logprobs"):
        build_batch([TurnSample([1], [2001, 2002], 1.0, [-0.1])], PAD)


def _turn(i: int, status: str, with_ids: bool = True) -> Turn:
    return Turn(index=i, messages=[], completion="x", verdict=Verdict(status=status, correct=status == "ok"),
                prompt_ids=[1000 + i] * (i + 2) if with_ids else None,
                completion_ids=[2000 + i] * 3 if with_ids else None)


def test_turn_samples_from_groups():
    g = Group(task="t", trajectories=[
        Trajectory(task="t", sample=0, turns=[_turn(0, "ok")]),
        Trajectory(task="t", sample=1, turns=[_turn(0, "incorrect"), _turn(1, "ok")]),
        Trajectory(task="t", sample=2, turns=[_turn(0, "incorrect"), _turn(1, "incorrect")]),
    ])
    credits = group_credits(g)
    samples = turn_samples([g], [credits])
    assert [(s.traj, s.turn, s.advantage) for s in samples] == [
        (0, 0, 1.0), (1, 0, 0.0), (1, 1, 0.0), (2, 0, -1.0), (2, 1, -1.0)]
    assert len(turn_samples([g], [credits], drop_zero=True)) == 3
    b = build_batch(samples, PAD)
    assert b.input_ids[4][b.loss_mask[4]].tolist() == [2001] * 3
    with pytest.raises(ValueError, match="expected 3 trajectories"):
        turn_samples([g], [credits[:2]])
    g.trajectories[0].turns[0] = _turn(0, "ok", with_ids=False)
    with pytest.raises(ValueError, match="sample 0 turn 1: prompt_ids/completion_ids missing"):
        turn_samples([g], [credits])
