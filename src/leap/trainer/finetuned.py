"""A trained policy for inference: base weights + a `leap sft` / `leap train` checkpoint (LoRA merged), so
`leap eval --checkpoint` measures the policy a run produced (Acc@turn before SFT, after SFT, after RL)."""

from __future__ import annotations

from pathlib import Path

from leap.trainer.checkpoint import load_checkpoint, resolve_checkpoint
from leap.trainer.config import ConfigError, load_config
from leap.trainer.model import load_policy, resolve_device


def load_finetuned(base: str | None, checkpoint: str | Path, device: str = "auto"):
    """``(model, tokenizer)`` in eval mode: the checkpoint's model config with ``base`` as ``model.path``
    (None keeps the checkpoint's own), its trained weights loaded and LoRA adapters merged.
    Raises `ConfigError` (one line) for a missing or mismatched checkpoint."""
    try:
        ckpt = resolve_checkpoint(checkpoint)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    cfg_file = ckpt / "config.yaml"
    if not cfg_file.is_file():
        raise ConfigError(f"{ckpt}: no config.yaml (not a LEAP checkpoint?)")
    mcfg = load_config(cfg_file).model
    update: dict = {"init_from": None, "gradient_checkpointing": False}
    if base and mcfg.tiny is None:
        update["path"] = str(base)
    mcfg = mcfg.model_copy(update=update)
    policy = load_policy(mcfg, resolve_device(device))
    try:
        load_checkpoint(ckpt, policy=policy, restore_rng=False)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None
    model = policy.model.merge_and_unload() if policy.lora else policy.model
    for p in model.parameters():
        p.requires_grad_(False)
    return model.eval(), policy.tokenizer
