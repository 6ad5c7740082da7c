"""Load the policy for training: a Hugging Face model (or a tiny one built from config), LoRA or full FT.

With LoRA the reference policy for the KL term is the same network with its adapters disabled
(`reference_mode`), so no second copy of the weights is held. With full fine-tuning and KL on, a frozen
copy is kept.
"""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import torch

from leap.trainer.config import ConfigError, ModelConfig


@dataclass
class PolicyModel:
    """The trainable policy, its tokenizer, and (full FT + KL only) a frozen reference copy."""

    model: torch.nn.Module
    tokenizer: object
    lora: bool
    reference: torch.nn.Module | None = None
    dtype: torch.dtype = torch.float32
    info: dict = field(default_factory=dict)

    def trainable_parameters(self) -> list[torch.nn.Parameter]:
        return [p for p in self.model.parameters() if p.requires_grad]

    def trainable_state(self) -> dict[str, torch.Tensor]:
        """Only the trained tensors (LoRA adapters, or every weight under full FT), on the CPU."""
        return {n: p.detach().cpu().clone() for n, p in self.model.named_parameters() if p.requires_grad}

    @contextlib.contextmanager
    def reference_mode(self) -> Iterator[torch.nn.Module]:
        """Yield the reference network: adapters disabled (LoRA) or the frozen copy (full FT)."""
        if self.lora:
            with self.model.disable_adapter():
                yield self.model
        elif self.reference is not None:
            yield self.reference
        else:
            raise RuntimeError("no reference model: full fine-tuning keeps one only when loss.kl_coef > 0")


@contextlib.contextmanager
def generation_mode(model: torch.nn.Module) -> Iterator[torch.nn.Module]:
    """Sample fast: eval mode, gradient checkpointing off and ``config.use_cache`` on for the block.

    In train mode with gradient checkpointing, transformers forces ``use_cache=False``: every generated
    token would re-run the whole sequence. All three are restored afterwards.
    """
    was_training = model.training
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    new_api = hasattr(base, "activation_checkpointing_disable")  # transformers >= 5.x renamed it
    checkpointing = bool(getattr(base, "is_activation_checkpointing" if new_api else "is_gradient_checkpointing",
                                 False))
    kwargs = getattr(model, "_leap_gc_kwargs", None) or {"use_reentrant": False}
    cfg = getattr(model, "config", None)
    use_cache = getattr(cfg, "use_cache", None)
    model.eval()
    if checkpointing:
        base.activation_checkpointing_disable() if new_api else base.gradient_checkpointing_disable()
    if use_cache is not None:
        cfg.use_cache = True
    try:
        yield model
    finally:
        if use_cache is not None:
            cfg.use_cache = use_cache
        if checkpointing:
            if new_api:
                base.activation_checkpointing_enable(activation_checkpointing_kwargs=kwargs)
            else:
                base.gradient_checkpointing_enable(gradient_checkpointing_kwargs=kwargs)
        model.train(was_training)


def resolve_device(device: str) -> torch.device:
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cuda" and not torch.cuda.is_available():
        raise ConfigError("device: cuda requested but no CUDA GPU is visible")
    return torch.device(device)


def resolve_dtype(name: str, device: torch.device) -> torch.dtype:
    """``auto``: bf16 on a GPU that supports it, else fp32 (CPU training stays in fp32)."""
    if name == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    return {"float32": torch.float32, "bfloat16": torch.bfloat16, "float16": torch.float16}[name]


def _load_base(cfg: ModelConfig, dtype: torch.dtype):
    if cfg.tiny is not None:
        from leap.models.tiny import build_tiny_model, build_tiny_tokenizer

        t = cfg.tiny
        tokenizer = build_tiny_tokenizer(vocab_size=t.vocab_size)
        model = build_tiny_model(tokenizer, layers=t.layers, hidden=t.hidden, heads=t.heads,
                                 kv_heads=t.kv_heads, seed=t.seed, max_positions=t.max_positions)
        return model.to(dtype), tokenizer
    from transformers import AutoModelForCausalLM

    from leap.models.tokenizer import load_tokenizer

    kwargs = {"dtype": dtype, "trust_remote_code": cfg.trust_remote_code}
    if cfg.attn_implementation:
        kwargs["attn_implementation"] = cfg.attn_implementation
    where, extra = cfg.path, {}
    if cfg.path.endswith(".gguf"):  # a single GGUF file (dequantised by transformers; needs `gguf`)
        where, extra = str(Path(cfg.path).parent), {"gguf_file": Path(cfg.path).name}
    try:
        tokenizer = load_tokenizer(where, trust_remote_code=cfg.trust_remote_code, **extra)
        model = AutoModelForCausalLM.from_pretrained(where, **kwargs, **extra)
    except (OSError, ValueError, ImportError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else exc.__class__.__name__
        raise ConfigError(f"model.path: cannot load {cfg.path!r} ({first})") from None
    if tokenizer.pad_token_id is None:
        tokenizer.pad_token = tokenizer.eos_token
    return model, tokenizer


def _add_lora(model: torch.nn.Module, cfg: ModelConfig) -> torch.nn.Module:
    from peft import LoraConfig, get_peft_model

    targets = cfg.lora.targets
    if isinstance(targets, list):
        names = {n.rsplit(".", 1)[-1] for n, m in model.named_modules() if isinstance(m, torch.nn.Linear)}
        present = [t for t in targets if t in names]
        if not present:
            raise ConfigError(f"model.lora.targets: none of {targets} is a linear layer of this model "
                              f"(it has {sorted(names)})")
        targets = present
    lcfg = LoraConfig(r=cfg.lora.rank, lora_alpha=cfg.lora.alpha, lora_dropout=cfg.lora.dropout,
                      target_modules=targets, task_type="CAUSAL_LM", bias="none")
    return get_peft_model(model, lcfg)


def load_policy(cfg: ModelConfig, device: torch.device, *, keep_reference: bool = False) -> PolicyModel:
    """Build the trainable policy on ``device`` from the model config.

    ``keep_reference``: under full fine-tuning, keep a frozen copy for the KL term.
    """
    dtype = resolve_dtype(cfg.dtype, device)
    model, tokenizer = _load_base(cfg, dtype)
    if getattr(model.config, "use_cache", None) is not None:
        model.config.use_cache = True  # generation uses the cache; training forwards pass use_cache=False
    reference = None
    if cfg.finetune == "lora":
        for p in model.parameters():
            p.requires_grad_(False)
        model = _add_lora(model, cfg)
    elif keep_reference:
        reference = copy.deepcopy(model).eval().to(device)
        for p in reference.parameters():
            p.requires_grad_(False)
    if cfg.gradient_checkpointing:
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model._leap_gc_kwargs = {"use_reentrant": False}
        if cfg.finetune == "lora" and hasattr(model, "enable_input_require_grads"):
            model.enable_input_require_grads()
    model.to(device)
    if cfg.init_from:
        from leap.trainer.checkpoint import load_checkpoint

        try:
            load_checkpoint(cfg.init_from, policy=PolicyModel(model, tokenizer, cfg.finetune == "lora"),
                            restore_rng=False)
        except ValueError as exc:
            raise ConfigError(f"model.init_from: {exc}") from None
    n_train = sum(p.numel() for p in model.parameters() if p.requires_grad)
    n_all = sum(p.numel() for p in model.parameters())
    info = {"trainable_params": n_train, "total_params": n_all, "dtype": str(dtype).replace("torch.", ""),
            "device": str(device)}
    return PolicyModel(model=model, tokenizer=tokenizer, lora=cfg.finetune == "lora", reference=reference,
                       dtype=dtype, info=info)
