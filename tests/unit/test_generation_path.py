"""The trainer's generation path uses the KV cache: eval mode, gradient checkpointing off, one token per
decode forward (a cache-less loop would feed the whole sequence every step); the training state comes back."""

import pytest
import torch

from leap.sandbox.judge.verdict import Verdict
from leap.tasks.suite import get_builtin
from leap.trainer.config import load_config
from leap.trainer.model import generation_mode, load_policy
from leap.trainer.rollouts import Rollouts


def _rule(pairs):
    return [Verdict(status="incorrect", feedback="wrong") for _ in pairs]


def _checkpointing(model) -> bool:
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return bool(base.is_activation_checkpointing)


@pytest.mark.parametrize("cache", ["dynamic", "graph"])
def test_generation_uses_the_cache_under_gradient_checkpointing(cache):
    cfg = load_config(None, ["model.tiny.layers=1", "model.tiny.hidden=32", "model.gradient_checkpointing=true",
                             "device=cpu", "rollout.group_size=2", "rollout.tasks_per_step=2",
                             "rollout.max_turns=1", "rollout.sampling.max_new_tokens=6",
                             f"rollout.kv_cache={cache}", "model.finetune=lora"])
    torch.manual_seed(0)
    policy = load_policy(cfg.model, torch.device("cpu"))
    model = policy.model
    model.train()
    assert _checkpointing(model)
    seen = []  # (input length, training, checkpointing) per forward of the embedding

    def hook(_mod, args):
        seen.append((args[0].shape[1], model.training, _checkpointing(model)))

    h = model.get_input_embeddings().register_forward_pre_hook(hook)
    try:
        with Rollouts(policy, cfg, verifier=_rule) as ro:
            groups, _ = ro.collect([get_builtin("relu_fp32"), get_builtin("add_fp32")])
    finally:
        h.remove()
    tokens = max(t.completion_tokens for g in groups for tr in g.trajectories for t in tr.turns)
    assert tokens >= 2
    prefill = [n for n, _, _ in seen if n > 1]
    assert len(prefill) == 1, f"{len(prefill)} forwards fed more than one token: the cache is not used"
    assert all(n == 1 for n, _, _ in seen[1:])
    assert len(seen) <= 6  # one forward per generated token (prefill gives the first)
    assert not any(train or ckpt for _, train, ckpt in seen)
    assert model.training and _checkpointing(model)  # restored for the optimisation step


def test_generation_mode_restores_use_cache_and_mode():
    cfg = load_config(None, ["model.tiny.layers=1", "model.tiny.hidden=32", "model.gradient_checkpointing=true",
                             "device=cpu", "model.finetune=full"])
    model = load_policy(cfg.model, torch.device("cpu")).model
    model.train()
    model.config.use_cache = False
    with generation_mode(model):
        assert not model.training and model.config.use_cache and not _checkpointing(model)
    assert model.training and model.config.use_cache is False and _checkpointing(model)
