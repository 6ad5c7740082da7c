"""The optimisation step on synthetic groups: accumulation invariance, multi-pass, every LoRA weight moves."""

import random
import sys
from pathlib import Path

import pytest
import torch

sys.path.insert(0, str(Path(__file__).parent))
from trainer_tiny import write_tiny_checkpoint  # noqa: E402

from leap.rollout.records import Group, Trajectory, Turn  # noqa: E402
from leap.sandbox.judge.verdict import Verdict  # noqa: E402
from leap.trainer.config import load_config  # noqa: E402
from leap.trainer.model import load_policy  # noqa: E402
from leap.trainer.optim import build_optimizer, build_scheduler  # noqa: E402
from leap.trainer.step import accumulate, train_on_groups  # noqa: E402


@pytest.fixture(scope="module")
def tiny_path(tmp_path_factory):
    return str(write_tiny_checkpoint(tmp_path_factory.mktemp("tiny") / "model"))


def _turn(rng, index, status):
    prompt = [rng.randrange(250) for _ in range(rng.randrange(5, 12))]
    comp = [rng.randrange(250) for _ in range(rng.randrange(3, 9))]
    return Turn(index=index, messages=[], completion="", verdict=Verdict(status=status, correct=status == "ok"),
                prompt_ids=prompt, completion_ids=comp, completion_tokens=len(comp))


def synthetic_groups(seed=0):
    """2 groups x G=4: mixed outcomes, one trajectory with 2 turns, so credits are non-trivial."""
    rng = random.Random(seed)
    plans = [[["ok"], ["incorrect"], ["compile_error"], ["incorrect", "ok"]],
             [["ok"], ["ok"], ["format_error"], ["incorrect"]]]
    groups = []
    for g, plan in enumerate(plans):
        trajs = [Trajectory(task=f"t{g}", sample=i, turns=[_turn(rng, k, s) for k, s in enumerate(st)])
                 for i, st in enumerate(plan)]
        groups.append(Group(task=f"t{g}", trajectories=trajs, expanded=g == 0))
    return groups


def _cfg(path, *extra):
    return load_config(None, [f"model.path={path}", "model.lora.rank=4", "model.lora.targets=all-linear",
                              "device=cpu", "optim.lr=1e-2", *extra])


def _grads(policy):
    return torch.cat([p.grad.flatten() for p in policy.trainable_parameters()])


@pytest.mark.parametrize("aggregation", ["token_mean", "constant"])
def test_batch1_x_accum8_equals_batch8_x_accum1(tiny_path, aggregation):
    groups = synthetic_groups()
    from leap.algorithms.advantages import turn_samples
    from leap.algorithms.credit import batch_credits

    results = []
    for micro, accum in ((1, 8), (8, 1)):
        cfg = _cfg(tiny_path, f"optim.micro_batch_size={micro}", f"optim.grad_accumulation={accum}",
                   f"loss.aggregation={aggregation}", "rollout.sampling.max_new_tokens=16")
        torch.manual_seed(0)
        policy = load_policy(cfg.model, torch.device("cpu"))
        with torch.no_grad():  # make LoRA B non-zero so the A gradients are non-trivial too
            for n, p in policy.model.named_parameters():
                if "lora_B" in n:
                    p.normal_(0, 0.1, generator=torch.Generator().manual_seed(len(n)))
        samples = turn_samples(groups, batch_credits(groups, cfg.reward, cfg.credit))[:8]
        assert len(samples) == 8
        policy.model.zero_grad(set_to_none=True)
        m = accumulate(policy, samples, cfg, "cpu")
        g = _grads(policy)
        results.append((m["loss"], g.norm().item(), g))
    (l1, n1, g1), (l8, n8, g8) = results
    assert l1 == pytest.approx(l8, rel=1e-5, abs=1e-7)
    assert n1 == pytest.approx(n8, rel=1e-4) and n1 > 0
    assert torch.allclose(g1, g8, rtol=1e-3, atol=1e-7)


def test_train_step_moves_every_lora_parameter_and_multi_pass_runs(tiny_path):
    cfg = _cfg(tiny_path, "optim.micro_batch_size=3", "optim.passes_per_batch=2", "loss.kl_coef=0.05")
    torch.manual_seed(0)
    policy = load_policy(cfg.model, torch.device("cpu"))
    before = policy.trainable_state()
    params = policy.trainable_parameters()
    opt = build_optimizer(params, cfg.optim)
    sched = build_scheduler(opt, cfg.optim, 10)
    m = train_on_groups(policy, opt, sched, synthetic_groups(), cfg, "cpu")
    after = policy.trainable_state()
    assert before and all(not torch.equal(before[k], after[k]) for k in before), "a LoRA tensor did not move"
    assert m["optimizer_steps"] == 2 and m["train_samples"] == 9
    for key in ("loss", "grad_norm", "entropy", "kl", "clip_fraction", "approx_kl"):
        assert torch.isfinite(torch.tensor(m[key])), key
    assert m["grad_norm"] > 0 and m["entropy"] > 0
    assert m["kl"] >= 0


def test_full_finetuning_with_kl_keeps_a_frozen_reference(tiny_path):
    cfg = _cfg(tiny_path, "model.finetune=full", "optim.lr=1e-3", "loss.kl_coef=0.1", "optim.passes_per_batch=2")
    torch.manual_seed(0)
    policy = load_policy(cfg.model, torch.device("cpu"), keep_reference=True)
    assert not policy.lora and policy.reference is not None
    assert all(not p.requires_grad for p in policy.reference.parameters())
    before = policy.trainable_state()
    ref_before = {n: p.clone() for n, p in policy.reference.named_parameters()}
    opt = build_optimizer(policy.trainable_parameters(), cfg.optim)
    m = train_on_groups(policy, opt, build_scheduler(opt, cfg.optim, 10), synthetic_groups(), cfg, "cpu")
    after = policy.trainable_state()
    moved = [k for k in before if not torch.equal(before[k], after[k])]
    assert len(moved) >= len(before) - 1  # every weight (the tied embedding counted once)
    assert all(torch.equal(ref_before[n], p) for n, p in policy.reference.named_parameters())
    assert m["kl"] > 0  # second pass: the policy has moved away from the reference


def test_sampler_logprob_gap_measures_the_generators_logprobs_and_leaves_the_loss_alone(tiny_path):
    """The generator's reported log-probs never enter the loss; they are compared with the trainer's own:
    the trainer's values give a gap of ~0, the same values shifted by 0.25 a gap of 0.25."""
    from leap.algorithms.advantages import turn_samples
    from leap.algorithms.credit import batch_credits
    from leap.trainer.step import _chunks, _old_logprobs

    cfg = _cfg(tiny_path, "optim.micro_batch_size=3")
    policy = load_policy(cfg.model, torch.device("cpu"))
    groups = synthetic_groups()
    samples = turn_samples(groups, batch_credits(groups, cfg.reward, cfg.credit))
    plain = accumulate(policy, samples, cfg, "cpu", compare_sampler=True)
    assert "sampler/logprob_gap" not in plain  # no generator log-probs: nothing to compare
    own = [lp for m in _old_logprobs(policy, _chunks(samples, 3), cfg, "cpu") for lp in m]
    for s, row in zip(samples, own, strict=True):
        n = len(s.completion_ids)
        s.old_logprobs = row[len(s.prompt_ids):len(s.prompt_ids) + n].tolist()
    exact = accumulate(policy, samples, cfg, "cpu", compare_sampler=True)
    assert exact["sampler/logprob_gap"] < 1e-5 and exact["loss"] == pytest.approx(plain["loss"])
    for s in samples:
        s.old_logprobs = [x + 0.25 for x in s.old_logprobs]
    shifted = accumulate(policy, samples, cfg, "cpu", compare_sampler=True)
    assert shifted["sampler/logprob_gap"] == pytest.approx(0.25, abs=1e-4)
    assert shifted["loss"] == pytest.approx(plain["loss"])  # the loss ignores the generator's log-probs


def test_skip_zero_advantage_leaves_all_failed_groups_out(tiny_path):
    """An all-failed group has advantage 0 everywhere: with the option it costs no forward/backward."""
    rng = random.Random(3)
    failed = Group(task="f", trajectories=[Trajectory(task="f", sample=i, turns=[_turn(rng, 0, "format_error")])
                                           for i in range(4)])
    groups = synthetic_groups() + [failed]
    counts = {}
    for skip in (False, True):
        cfg = _cfg(tiny_path, f"optim.skip_zero_advantage={str(skip).lower()}", "optim.micro_batch_size=4")
        policy = load_policy(cfg.model, torch.device("cpu"))
        opt = build_optimizer(policy.trainable_parameters(), cfg.optim)
        m = train_on_groups(policy, opt, build_scheduler(opt, cfg.optim, 4), groups, cfg, "cpu")
        counts[skip] = m["train_samples"]
        if skip:
            only_failed = train_on_groups(policy, opt, build_scheduler(opt, cfg.optim, 4), [failed], cfg, "cpu")
            assert only_failed["train_samples"] == 0
    assert counts[False] - counts[True] >= 4  # the failed group's 4 samples at least
    assert counts[True] > 0
