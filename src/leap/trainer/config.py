"""`TrainConfig`: the one schema for `leap train` and `leap sft`, loaded from YAML with CLI overrides.

Every section forbids unknown keys, so a typo is an error, not a silently ignored setting. Load with
`load_config(path, overrides)`; errors are `ConfigError` whose message is one line naming the file, the
key and what was expected.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from leap.trainer.algo_configs import CreditConfig, DCPConfig, LossConfig, RewardConfig


class ConfigError(ValueError):
    """A config that cannot be used; the message is one line (file, key, what was expected)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)


class TinyModelConfig(_Strict):
    """A tiny random-weight Qwen2 chat model and BPE tokenizer built offline (`leap.models.tiny`)."""

    vocab_size: int = Field(512, ge=300, description="BPE vocabulary trained on the built-in corpus")
    hidden: int = Field(64, ge=8)
    layers: int = Field(2, ge=1)
    heads: int = Field(4, ge=1)
    kv_heads: int = Field(2, ge=1)
    max_positions: int = Field(4096, ge=64)
    seed: int = 0


class LoraSettings(_Strict):
    """LoRA adapters (peft). ``targets`` are module-name suffixes; "all-linear" picks every linear."""

    rank: int = Field(16, ge=1)
    alpha: float = Field(32.0, gt=0)
    dropout: float = Field(0.0, ge=0, lt=1)
    targets: list[str] | Literal["all-linear"] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"])


class ModelConfig(_Strict):
    """The policy: a Hugging Face path/name, or a tiny model built from ``tiny``."""

    path: str | None = None
    tiny: TinyModelConfig | None = None
    finetune: Literal["lora", "full"] = "lora"
    lora: LoraSettings = Field(default_factory=LoraSettings)
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = "auto"
    gradient_checkpointing: bool = False
    attn_implementation: str | None = Field(None, description="e.g. sdpa, flash_attention_2")
    trust_remote_code: bool = False
    init_from: str | None = Field(None, description="checkpoint whose trained weights start the run (e.g. leap sft's)")

    @model_validator(mode="after")
    def _one_source(self) -> ModelConfig:
        if (self.path is None) == (self.tiny is None):
            raise ValueError("set exactly one of model.path or model.tiny")
        return self


class SamplingConfig(_Strict):
    temperature: float = Field(1.0, ge=0)
    top_p: float = Field(1.0, gt=0, le=1)
    top_k: int = Field(0, ge=0)
    max_new_tokens: int = Field(1024, ge=1)


class RolloutConfig(_Strict):
    """How groups are sampled: G samples per task, up to ``max_turns`` turns each."""

    group_size: int = Field(8, ge=2, description="G, samples per task")
    tasks_per_step: int = Field(4, ge=1, description="groups per training step")
    max_turns: int = Field(3, ge=1)
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    tasks: str = Field("builtin:train", description="task source: builtin[:split], file, dir, KernelBench")
    task_filter: list[str] = Field(default_factory=list, description="keep only these task names")
    pass_rate_file: str | None = Field(None, description="`leap sft-data pass-rates` JSON: keep tasks whose "
                                       "pass rate lies strictly between pass_rate_min and pass_rate_max")
    pass_rate_min: float = Field(0.0, ge=0, le=1)
    pass_rate_max: float = Field(1.0, ge=0, le=1)
    kernel_backend: Literal["triton", "cuda_inline", "cuda_nvrtc"] = "triton"
    max_context_tokens: int = Field(8192, ge=64)
    generation_batch_size: int = Field(0, ge=0, description="sequences per generate call (0 = all)")
    kv_cache: Literal["static", "dynamic", "graph"] = Field(
        "dynamic", description="HFPolicy cache: dynamic (plain generate), static, graph (CUDA graphs)")
    sandbox_device: Literal["auto", "cpu", "cuda"] = "auto"
    sandbox_workers: int = Field(0, ge=0, description="0 = sandbox default")
    sandbox_gpus: list[int] | None = Field(None, description="GPUs the sandbox verifies on (None = all)")
    overlap: bool = Field(True, description="verify a group in the sandbox while the next one generates")


class OptimConfig(_Strict):
    lr: float = Field(1e-5, gt=0)
    weight_decay: float = Field(0.0, ge=0)
    betas: tuple[float, float] = (0.9, 0.999)
    schedule: Literal["constant", "linear", "cosine"] = "constant"
    warmup_steps: int = Field(0, ge=0)
    grad_clip: float = Field(1.0, ge=0, description="max grad norm (0 = off)")
    micro_batch_size: int = Field(4, ge=1, description="samples per forward/backward")
    grad_accumulation: int = Field(0, ge=0, description="micro-batches per optimizer step (0 = whole batch)")
    passes_per_batch: int = Field(1, ge=1, description="optimisation passes over each rollout batch")


class CheckpointConfig(_Strict):
    dir: str = "runs/leap/checkpoints"
    every: int = Field(10, ge=0, description="save every N steps (0 = only at the end / on a signal)")
    keep_last: int = Field(2, ge=1)


class LoggingConfig(_Strict):
    dir: str = "runs/leap"
    jsonl: bool = True
    tensorboard: bool = False
    wandb: bool = False
    wandb_project: str = "leap"
    progress: bool = True
    rollouts: bool = Field(True, description="write each step's samples to DIR/rollouts/step-N.jsonl")
    status_line: bool = Field(True, description="print a one-line verdict breakdown per step")


class SFTConfig(_Strict):
    """Cold-start SFT (`leap sft`) on JSONL lines ``{"prompt": str | [messages], "answer": str}``."""

    data: str | None = None
    epochs: int = Field(1, ge=1)
    max_length: int = Field(4096, ge=16)
    shuffle: bool = True


class TrainConfig(_Strict):
    """Everything `leap train` needs. Sub-configs mirror the data flow (DESIGN.md §1)."""

    model: ModelConfig
    rollout: RolloutConfig = Field(default_factory=RolloutConfig)
    dcp: DCPConfig = Field(default_factory=DCPConfig)
    reward: RewardConfig = Field(default_factory=RewardConfig)
    credit: CreditConfig = Field(default_factory=CreditConfig)
    loss: LossConfig = Field(default_factory=LossConfig)
    optim: OptimConfig = Field(default_factory=OptimConfig)
    checkpoint: CheckpointConfig = Field(default_factory=CheckpointConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    sft: SFTConfig = Field(default_factory=SFTConfig)
    steps: int = Field(100, ge=0, description="training steps")
    seed: int = 0
    device: Literal["auto", "cpu", "cuda"] = "auto"
    run_name: str = "leap"


# --------------------------------------------------------------------------- loading


def _expected(err: dict) -> str:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required key is missing"
    ctx = err.get("ctx") or {}
    if "expected" in ctx:
        return f"expected {ctx['expected']}, got {err.get('input')!r}"
    return f"{err['msg']} (got {err.get('input')!r})"


def _one_line(where: str, exc: ValidationError) -> ConfigError:
    err = exc.errors()[0]
    loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-after"))
    more = f" (+{len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
    return ConfigError(f"{where}: {loc or '<root>'}: {_expected(err)}{more}")


def _parse_value(text: str) -> Any:
    """A CLI value: YAML scalars/lists (``3``, ``1e-5``, ``true``, ``[a, b]``, ``null``); else the string."""
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return text


def apply_overrides(data: dict, overrides: list[str], where: str) -> dict:
    """Apply ``key.sub=value`` overrides to a raw config dict (typing happens at validation)."""
    for item in overrides:
        if "=" not in item:
            raise ConfigError(f"{where}: override {item!r}: expected key.sub=value")
        key, value = item.split("=", 1)
        parts = [p for p in key.strip().split(".") if p]
        if not parts:
            raise ConfigError(f"{where}: override {item!r}: empty key")
        node = data
        for p in parts[:-1]:
            child = node.get(p)
            if child is None:
                child = node[p] = {}
            if not isinstance(child, dict):
                raise ConfigError(f"{where}: override {key}: {p} is not a section")
            node = child
        node[parts[-1]] = _parse_value(value)
    return data


def load_config(path: str | Path | None, overrides: list[str] | None = None) -> TrainConfig:
    """Read a YAML config, apply CLI overrides and validate; raises `ConfigError` (one line)."""
    where = str(path) if path else "<overrides>"
    data: Any = {}
    if path is not None:
        p = Path(path)
        try:
            data = yaml.safe_load(p.read_text()) or {}
        except OSError as exc:
            raise ConfigError(f"{where}: cannot read config ({exc.strerror or exc})") from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = f" line {mark.line + 1}" if mark else ""
            raise ConfigError(f"{where}:{line} not valid YAML") from None
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a mapping of sections at the top level")
    data = apply_overrides(data, list(overrides or []), where)
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise _one_line(where, exc) from None


def dump_config(cfg: TrainConfig) -> str:
    """The config as YAML (written next to checkpoints so a run can be reproduced)."""
    return yaml.safe_dump(json.loads(cfg.model_dump_json()), sort_keys=False)
