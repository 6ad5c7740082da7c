"""The PPO-clip loss: gradient sign, clipping, masking, aggregation, KL and log-prob alignment."""

from __future__ import annotations

import math

import pytest
import torch

from leap.algorithms import LossConfig, TurnSample, build_batch
from leap.algorithms.loss import gather_logprobs, policy_loss, token_entropy


def one_token(ratio: float, adv: float, cfg: LossConfig | None = None):
    """Loss and d loss / d logp for a single token with the given ratio and advantage."""
    lp = torch.tensor([[math.log(ratio)]], requires_grad=True)
    out = policy_loss(lp, torch.zeros(1, 1), torch.tensor([[adv]]), torch.ones(1, 1, dtype=torch.bool), cfg)
    out.loss.backward()
    return out, float(lp.grad)


def test_gradient_sign_follows_advantage():
    _, g_pos = one_token(1.0, 1.0)
    _, g_neg = one_token(1.0, -1.0)
    assert g_pos < 0 < g_neg     # descending the loss raises logp of good tokens, lowers bad ones
    assert one_token(1.0, 0.0)[1] == 0.0


@pytest.mark.parametrize("ratio,adv,clipped", [
    (1.25, 1.0, False),   # inside eps_high = 0.28
    (1.30, 1.0, True),    # beyond 1 + eps_high with A > 0: no more push up
    (0.70, 1.0, False),   # below 1 - eps_low with A > 0: unclipped side, still pushed up
    (0.85, -1.0, False),  # inside eps_low = 0.2
    (0.78, -1.0, True),   # beyond 1 - eps_low with A < 0: no more push down
    (1.50, -1.0, False),  # above 1 + eps_high with A < 0: pessimistic side, still pushed down
])
def test_asymmetric_clipping(ratio, adv, clipped):
    out, g = one_token(ratio, adv)
    assert (g == 0.0) is clipped
    assert float(out.clip_fraction) == (1.0 if clipped else 0.0)
    expected = -min(ratio * adv, min(max(ratio, 0.8), 1.28) * adv)
    assert out.loss.item() == pytest.approx(expected, rel=1e-6)


def _batch(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    lp = (-torch.rand(3, 7, generator=g) * 3).requires_grad_()
    old = lp.detach() + 0.1 * torch.randn(3, 7, generator=g)
    adv = torch.randn(3, 7, generator=g)
    mask = torch.rand(3, 7, generator=g) > 0.4
    mask[0, 0] = True
    return lp, old, adv, mask


def test_masked_tokens_contribute_nothing():
    lp, old, adv, mask = _batch()
    out = policy_loss(lp, old, adv, mask)
    out.loss.backward()
    assert torch.all(lp.grad[~mask] == 0) and torch.any(lp.grad[mask] != 0)
    # garbage (huge, inf, nan) at masked positions changes neither the loss nor the gradient
    lp2 = lp.detach().clone()
    lp2[~mask] = 80.0
    old2 = old.clone()
    old2[~mask] = -float("inf")
    adv2 = adv.clone()
    adv2[~mask] = float("nan")
    lp2.requires_grad_()
    out2 = policy_loss(lp2, old2, adv2, mask, ref_logprobs=torch.where(mask, lp2.detach(), -1e4))
    out2.loss.backward()
    assert out2.loss.item() == pytest.approx(out.loss.item())
    assert torch.allclose(lp2.grad, lp.grad) and torch.isfinite(lp2.grad).all()


def test_aggregation_modes_and_micro_batch_invariance():
    lp, old, adv, mask = _batch(1)
    per_tok = -torch.minimum((lp - old).exp() * adv, (lp - old).exp().clamp(0.8, 1.28) * adv)
    total = (per_tok * mask).sum().item()
    tm = policy_loss(lp, old, adv, mask)
    assert tm.loss.item() == pytest.approx(total / int(mask.sum()), rel=1e-5)
    const = policy_loss(lp, old, adv, mask, LossConfig(aggregation="constant", const_len=50))
    assert const.loss.item() == pytest.approx(total / (3 * 50), rel=1e-5)
    padded = policy_loss(lp, old, adv, mask, LossConfig(aggregation="constant"))
    assert padded.loss.item() == pytest.approx(total / (3 * 7), rel=1e-5)
    # split rows into micro-batches with the whole batch's denominator: losses and gradients add up
    for cfg, denom in ((LossConfig(), float(mask.sum())), (LossConfig(aggregation="constant", const_len=50), 150.0)):
        lp.grad = None
        policy_loss(lp, old, adv, mask, cfg).loss.backward()
        full = lp.grad.clone()
        lp.grad = None
        parts = [policy_loss(lp[i:i + 1], old[i:i + 1], adv[i:i + 1], mask[i:i + 1], cfg, denom=denom)
                 for i in range(3)]
        sum(p.loss for p in parts).backward()
        assert torch.allclose(lp.grad, full, atol=1e-7)


def test_kl_to_reference():
    lp, old, adv, mask = _batch(2)
    same = policy_loss(lp, old, adv, mask, LossConfig(kl_coef=0.5), ref_logprobs=lp.detach())
    assert float(same.kl) == 0.0
    assert same.loss.item() == pytest.approx(policy_loss(lp, old, adv, mask).loss.item())
    ref = lp.detach() - 0.3
    diff = policy_loss(lp, old, adv, mask, LossConfig(kl_coef=0.5), ref_logprobs=ref)
    assert float(diff.kl) == pytest.approx(math.exp(-0.3) + 0.3 - 1, rel=1e-5)
    assert diff.loss.item() > same.loss.item()
    lp.grad = None
    policy_loss(lp, lp.detach(), torch.zeros_like(adv), mask, LossConfig(kl_coef=1.0), ref_logprobs=ref).loss.backward()
    assert torch.all(lp.grad[mask] > 0)   # KL alone pulls logp down toward the (lower) reference
    with pytest.raises(ValueError, match="ref_logprobs"):
        policy_loss(lp, old, adv, mask, LossConfig(kl_coef=0.1))
    assert float(policy_loss(lp, lp.detach(), adv, mask).approx_kl) == 0.0


def test_logprob_alignment_with_built_batch():
    """Gradients reach exactly the logits that predict completion tokens (position p-1 for token p)."""
    samples = [TurnSample([5, 6, 7], [8, 9], 1.0), TurnSample([5], [9, 8, 7], -1.0)]
    b = build_batch(samples, pad_id=0)
    logits = torch.randn(2, b.input_ids.shape[1], 10, requires_grad=True)
    lp = gather_logprobs(logits, b.input_ids)
    ref = torch.log_softmax(logits[0, 2], -1)[8]
    assert lp[0, 3].item() == pytest.approx(ref.item()) and lp[0, 0].item() == 0.0
    out = policy_loss(lp, lp.detach(), b.advantages, b.loss_mask)
    out.loss.backward()
    touched = logits.grad.abs().sum(-1) > 0
    expected = torch.zeros_like(b.loss_mask)
    expected[:, :-1] = b.loss_mask[:, 1:]
    assert torch.equal(touched, expected)
    h = token_entropy(logits.detach())
    assert h.shape == b.input_ids.shape and float(h[0, 0]) == 0.0 and torch.all(h[:, 1:] > 0)


@pytest.mark.gpu
def test_cuda_bf16_matches_cpu_fp32():
    """On a GPU with bf16 logits (as the trainer runs), loss and gradients agree with the CPU in fp32."""
    g = torch.Generator().manual_seed(0)
    samples = [TurnSample(list(range(1, 40)), list(range(100, 100 + n)), a)
               for n, a in ((50, 1.0), (20, -0.5), (64, 0.25))]
    b = build_batch(samples, pad_id=0)
    logits = torch.randn(3, b.input_ids.shape[1], 32000, generator=g).to(torch.bfloat16).float()
    results = []
    for device in ("cpu", "cuda"):
        x = logits.to(device=device, dtype=torch.bfloat16 if device == "cuda" else torch.float32).detach()
        x.requires_grad_()
        bd = b.to(device)
        lp = gather_logprobs(x, bd.input_ids)
        old = lp.detach() + 0.05
        out = policy_loss(lp, old, bd.advantages, bd.loss_mask, LossConfig(kl_coef=0.1), ref_logprobs=old)
        out.loss.backward()
        results.append((out.loss.item(), x.grad.float().cpu()))
    assert results[1][0] == pytest.approx(results[0][0], rel=1e-3, abs=1e-5)
    assert torch.allclose(results[1][1], results[0][1], atol=1e-4, rtol=2e-2)
