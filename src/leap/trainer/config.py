"""`TrainConfig`: the one schema for `leap train` and `leap sft`, loaded from YAML with CLI overrides.

Every section forbids unknown keys, so a typo is an error, not a silently ignored setting. Load with
`load_config(path, overrides)`; errors are `ConfigError` whose message is one line naming the file, the
key and what was expected.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from leap.algorithms.config import StrictConfig
from leap.sandbox.config import SandboxConfig
from leap.trainer.algo_configs import CreditConfig, DCPConfig, LossConfig, RewardConfig


class ConfigError(ValueError):
    """A config that cannot be used; the message is one line (file, key, what was expected)."""


_Strict = StrictConfig


class SandboxSection(SandboxConfig):
    """The sandbox's own protocol settings (`leap.sandbox.SandboxConfig`), strict like every section.

    ``rollout.sandbox_workers`` / ``rollout.sandbox_gpus``, when set, take precedence over
    ``workers`` / ``gpus`` here (older configs use them).
    """

    model_config = ConfigDict(extra="forbid", validate_assignment=True)
    url: str | None = Field(None, description="a `leap sandbox serve` service to verify with "
                                              "(token: $LEAP_SANDBOX_TOKEN); None = a local sandbox pool")

    executor: Literal["local", "ray"] = Field("local", description="local: this process's worker pool; ray: "
                                              "sandbox actors on a Ray cluster (leap.integrations.ray_executor)")
    ray_actors: int = Field(0, ge=0, description="ray: sandbox actors (0 = one per GPU on the cluster, else 2)")
    ray_gpus_per_actor: float = Field(1.0, gt=0, description="ray: GPU share per actor (0.25 = 4 actors per GPU)")

    def for_rollout(self, rollout: RolloutConfig) -> SandboxConfig:
        """The `SandboxConfig` the trainer's sandbox runs with."""
        data = self.model_dump(exclude={"executor", "ray_actors", "ray_gpus_per_actor", "url"})
        if rollout.sandbox_workers:
            data["workers"] = rollout.sandbox_workers
        if rollout.sandbox_gpus is not None:
            data["gpus"] = rollout.sandbox_gpus
        return SandboxConfig(**data)


class TinyModelConfig(_Strict):
    """A tiny random-weight Qwen2 chat model and BPE tokenizer built offline (`leap.models.tiny`)."""

    vocab_size: int = Field(512, ge=300, description="BPE vocabulary trained on the built-in corpus")
    hidden: int = Field(64, ge=8, description='hidden size')
    layers: int = Field(2, ge=1, description='transformer layers')
    heads: int = Field(4, ge=1, description='attention heads')
    kv_heads: int = Field(2, ge=1, description='key/value heads (GQA)')
    max_positions: int = Field(4096, ge=64, description='longest context in tokens')
    seed: int = Field(0, description='weight-initialisation seed')


class LoraSettings(_Strict):
    """LoRA adapters (peft). ``targets`` are module-name suffixes; "all-linear" picks every linear."""

    rank: int = Field(16, ge=1, description='LoRA rank r')
    alpha: float = Field(32.0, gt=0, description='LoRA scale alpha (update scaled by alpha/r)')
    dropout: float = Field(0.0, ge=0, lt=1, description='dropout on the LoRA input')
    targets: list[str] | Literal["all-linear"] = Field(
        default_factory=lambda: ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"],
        description='module-name suffixes that get adapters, or "all-linear"')


class DemoPolicyConfig(_Strict):
    """The CPU demo's SFT policy (`leap demo`) with the demo's own tasks and compact prompts: a policy
    that already earns reward, so a few RL steps on the CPU move it. Built on the fly when ``dir`` holds none."""

    dir: str = Field("runs/demo/policy_sft", description="folder of a saved demo policy (policy_sft or policy_rl)")
    build_if_missing: bool = Field(True, description="run the demo's quick SFT into dir when it holds no policy")
    seed: int = Field(0, description="seed of the demo's task split (the RL tasks) and of the SFT it builds")


class ModelConfig(_Strict):
    """The policy: a Hugging Face path/name, a tiny model built from ``tiny``, or the demo's policy."""

    path: str | None = Field(None, description='Hugging Face folder or hub name of the policy')
    tiny: TinyModelConfig | None = Field(None, description="build a tiny random-weight model instead of loading one")
    demo: DemoPolicyConfig | None = Field(None, description="train the CPU demo's SFT policy on the demo's tasks")
    finetune: Literal["lora", "full"] = Field("lora", description='lora: train adapters only; full: every weight')
    lora: LoraSettings = Field(default_factory=LoraSettings)
    dtype: Literal["auto", "float32", "bfloat16", "float16"] = Field("auto",
        description='weight dtype (auto = bf16 on a GPU that has it, else fp32)')
    gradient_checkpointing: bool = Field(False, description='recompute activations in backward (less memory)')
    attn_implementation: str | None = Field(None, description="e.g. sdpa, flash_attention_2")
    trust_remote_code: bool = Field(False, description='allow model code from the model folder')
    init_from: str | None = Field(None, description="checkpoint whose trained weights start the run (e.g. leap sft's)")

    @model_validator(mode="after")
    def _one_source(self) -> ModelConfig:
        if sum(x is not None for x in (self.path, self.tiny, self.demo)) != 1:
            raise ValueError("set exactly one of model.path, model.tiny or model.demo")
        return self


class SamplingConfig(_Strict):
    """How each turn is sampled."""

    temperature: float = Field(1.0, ge=0, description='sampling temperature (0 = greedy)')
    top_p: float = Field(1.0, gt=0, le=1, description='nucleus sampling mass')
    top_k: int = Field(0, ge=0, description='top-k sampling (0 = off)')
    max_new_tokens: int = Field(1024, ge=1, description='tokens generated per turn')


class RolloutServerConfig(_Strict):
    """``rollout.backend: openai``: the OpenAI-compatible server that generates (`leap serve --enable-lora`,
    or ``vllm serve --enable-lora`` with ``VLLM_ALLOW_RUNTIME_LORA_UPDATING=True``)."""

    url: str | None = Field(None, description="the server's base URL, e.g. http://127.0.0.1:8000/v1")
    model: str | None = Field(None, description="model name to request (None = the first the server lists); "
                              "with LoRA each step's adapter name is sent instead")
    api_key_env: str = Field("OPENAI_API_KEY", description="environment variable holding the API key (may be unset)")
    timeout: float = Field(600.0, gt=0, description="seconds per request")
    concurrency: int = Field(16, ge=1, description="requests in flight at once")
    adapter_dir: str | None = Field(None, description="where each step's LoRA adapter is saved for the server to "
                                    "load (a path the server can read; None = <output_dir>/rollout_adapters)")
    sync_lora: bool = Field(True, description="save the adapter each step and load it into the server "
                            "(/v1/load_lora_adapter); false = the server's own weights generate")


class VLLMRolloutConfig(_Strict):
    """``rollout.backend: vllm``: an in-process ``vllm.LLM`` beside the trainer; each step's LoRA adapter is
    passed as a ``LoRARequest``."""

    gpu_memory_utilization: float = Field(0.35, gt=0, le=1, description="GPU memory share vLLM may take "
                                          "(the trainer needs the rest)")
    max_model_len: int | None = Field(None, ge=64, description="context vLLM allocates for (None = rollout."
                                      "max_context_tokens)")
    max_lora_rank: int | None = Field(None, ge=1, description="None = model.lora.rank")
    enforce_eager: bool = Field(False, description="no CUDA graphs in vLLM (less memory, slower)")
    dtype: str = Field("auto", description="vLLM weight dtype")


class RolloutConfig(_Strict):
    """How groups are sampled: G samples per task, up to ``max_turns`` turns each."""

    group_size: int = Field(8, ge=2, description="G, samples per task")
    tasks_per_step: int = Field(4, ge=1, description="groups per training step")
    max_turns: int = Field(3, ge=1, description='turns per sample (feedback turns after the first)')
    sampling: SamplingConfig = Field(default_factory=SamplingConfig)
    tasks: str = Field("builtin:train", description="task source: builtin[:split], file, dir, KernelBench")
    task_filter: list[str] = Field(default_factory=list, description="keep only these task names")
    levels: list[int] = Field(default_factory=list, description="keep only tasks of these levels (empty = all)")
    pass_rate_file: str | None = Field(None, description="`leap sft-data pass-rates` JSON: keep tasks whose "
                                       "pass rate lies strictly between pass_rate_min and pass_rate_max")
    pass_rate_min: float = Field(0.0, ge=0, le=1, description="lower pass-rate bound (exclusive)")
    pass_rate_max: float = Field(1.0, ge=0, le=1, description="upper pass-rate bound (exclusive)")
    kernel_backend: Literal["triton", "cuda_inline", "cuda_nvrtc"] = Field("triton",
        description='how candidates are compiled: triton, cuda_inline or cuda_nvrtc')
    prompt: Literal["leap", "kernelbench"] = Field("leap", description="turn-1 prompt: leap (LEAP's "
        "instructions and worked example) or kernelbench (KernelBench's one-shot prompt for kernel_backend, the "
        "same as `leap eval --prompt kernelbench`)")
    kernelbench_root: str | None = Field(None, description="prompt=kernelbench: a KernelBench checkout whose "
                                         "prompt templates are used (None = LEAP's wording, same structure)")
    max_context_tokens: int = Field(8192, ge=64, description='prompt + history budget in tokens')
    generation_batch_size: int = Field(0, ge=0, description="sequences per generate call (0 = all)")
    kv_cache: Literal["static", "dynamic", "graph"] = Field(
        "dynamic", description="HFPolicy cache: dynamic (plain generate), static, graph (CUDA graphs)")
    sandbox_device: Literal["auto", "cpu", "cuda"] = Field("auto",
        description='where the sandbox runs candidates (auto = the GPU when there is one)')
    sandbox_workers: int = Field(0, ge=0, description="0 = sandbox default")
    sandbox_gpus: list[int] | None = Field(None, description="GPUs the sandbox verifies on (None = all)")
    overlap: bool = Field(True, description="verify a group in the sandbox while the next one generates")
    backend: Literal["hf", "vllm", "openai"] = Field("hf", description="what generates: hf (the trainer's own "
        "weights, in process), vllm (in-process vLLM + LoRARequest), openai (an OpenAI-compatible server)")
    server: RolloutServerConfig = Field(default_factory=RolloutServerConfig)
    vllm: VLLMRolloutConfig = Field(default_factory=VLLMRolloutConfig)

    @model_validator(mode="after")
    def _usable_prompt(self) -> RolloutConfig:
        if self.prompt == "kernelbench" and self.kernelbench_root:
            from leap.rollout.kb_prompt import prompt_mode_fn
            from leap.rollout.prompts import PromptError

            try:
                prompt_mode_fn(self.prompt, self.kernel_backend, self.kernelbench_root)
            except PromptError as exc:
                raise ValueError(f"kernelbench_root: {exc}") from None
        return self


class OptimConfig(_Strict):
    """AdamW, schedule and batching of the update."""

    lr: float = Field(1e-5, gt=0, description='AdamW learning rate')
    weight_decay: float = Field(0.0, ge=0, description='AdamW weight decay')
    betas: tuple[float, float] = Field((0.9, 0.999), description='AdamW betas')
    schedule: Literal["constant", "linear", "cosine"] = Field("constant", description='learning-rate schedule')
    warmup_steps: int = Field(0, ge=0, description='linear warm-up steps')
    grad_clip: float = Field(1.0, ge=0, description="max grad norm (0 = off)")
    micro_batch_size: int = Field(4, ge=1, description="samples per forward/backward")
    grad_accumulation: int = Field(0, ge=0, description="micro-batches per optimizer step (0 = whole batch)")
    passes_per_batch: int = Field(1, ge=1, description="optimisation passes over each rollout batch")
    skip_zero_advantage: bool = Field(False, description="leave samples whose advantage is 0 (every group all "
                                      "solved or all failed) out of the update: with loss.kl_coef 0 they carry no "
                                      "policy gradient, only forward/backward time; the token mean is then over "
                                      "the samples that do (ignored when kl_coef > 0)")


class CheckpointConfig(_Strict):
    """When and where checkpoints are written (resume with --resume)."""

    dir: str | None = Field(None, description="checkpoint root (None = <output_dir>/checkpoints)")
    every: int = Field(10, ge=0, description="save every N steps (0 = only at the end / on a signal)")
    keep_last: int = Field(2, ge=1, description='checkpoints kept (older ones are deleted)')


class LoggingConfig(_Strict):
    """Where metrics go: metrics.jsonl, TensorBoard, W&B, the progress line."""

    dir: str | None = Field(None, description="metrics.jsonl / tensorboard dir (None = <output_dir>)")
    jsonl: bool = Field(True, description='write metrics.jsonl')
    tensorboard: bool = Field(False, description='write TensorBoard events (needs tensorboard)')
    wandb: bool = Field(False, description='log to Weights & Biases (needs wandb)')
    wandb_project: str = Field("leap", description='W&B project name')
    progress: bool = Field(True, description='print a progress line per step')
    rollouts: bool = Field(True, description="write each step's samples to DIR/rollouts/step-N.jsonl")
    status_line: bool = Field(True, description="print a one-line verdict breakdown per step")


class SFTConfig(_Strict):
    """Cold-start SFT (`leap sft`) on JSONL lines ``{"prompt": str | [messages], "answer": str}``."""

    data: str | None = Field(None, description='JSONL of {prompt, answer} pairs')
    epochs: int = Field(1, ge=1, description='passes over the data')
    max_length: int = Field(4096, ge=16, description='prompt + answer tokens kept')
    shuffle: bool = Field(True, description='shuffle each epoch')


class TrainConfig(_Strict):
    """Everything `leap train` needs. Sub-configs mirror the data flow (docs/ARCHITECTURE.md)."""

    model: ModelConfig = Field(description="the policy (model.path or model.tiny)")
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
    time_budget_s: float | None = Field(None, gt=0, description="stop (with a checkpoint) before a step that would "
                                        "end past this many seconds from the first step's start, judged by the "
                                        "longest step so far (a GPU lease's time is spent on steps that finish)")
    seed: int = Field(0, description='seed of sampling, data order and initialisation')
    device: Literal["auto", "cpu", "cuda"] = Field("auto",
        description='where the policy trains (auto = cuda when available)')
    run_name: str = Field("leap", description='name used by the loggers')
    output_dir: str = Field("runs/leap", description="where the run writes; checkpoints and logs live under it "
                            "unless checkpoint.dir / logging.dir say otherwise")
    sandbox: SandboxSection = Field(default_factory=SandboxSection, description="the sandbox's protocol")

    @model_validator(mode="after")
    def _rollout_backend(self) -> TrainConfig:
        backend = self.rollout.backend
        if backend == "hf":
            return self
        if backend == "openai" and not self.rollout.server.url:
            raise ValueError("rollout.backend openai needs rollout.server.url (e.g. http://127.0.0.1:8000/v1)")
        syncs = backend == "vllm" or self.rollout.server.sync_lora
        if syncs and self.model.finetune != "lora":
            raise ValueError(f"rollout.backend {backend} follows the trained weights through LoRA adapters: "
                             "set model.finetune: lora (full-weight sync is not implemented)")
        if self.model.path is None:
            raise ValueError(f"rollout.backend {backend} needs model.path (the server or engine loads the same "
                             "base weights)")
        return self

    @model_validator(mode="after")
    def _under_output_dir(self) -> TrainConfig:
        if self.checkpoint.dir is None:
            self.checkpoint.dir = str(Path(self.output_dir) / "checkpoints")
        if self.logging.dir is None:
            self.logging.dir = self.output_dir
        return self


# --------------------------------------------------------------------------- loading


_TYPE_WORDS = {"int": "an integer", "float": "a number", "bool": "true or false", "string": "a string",
               "list": "a list", "tuple": "a list", "dict": "a mapping (a section)", "model": "a mapping (a section)",
               "literal": "one of"}


def _section(loc: tuple) -> type[BaseModel] | None:
    """The config class that holds the key at ``loc`` (None when the path leaves the schema)."""
    cls: Any = TrainConfig
    for part in loc[:-1]:
        field = cls.model_fields.get(str(part)) if isinstance(cls, type) and issubclass(cls, BaseModel) else None
        if field is None:
            return None
        ann = field.annotation
        args = [a for a in getattr(ann, "__args__", ()) if isinstance(a, type) and issubclass(a, BaseModel)]
        cls = ann if isinstance(ann, type) and issubclass(ann, BaseModel) else (args[0] if args else None)
        if cls is None:
            return None
    return cls


def did_you_mean(loc: tuple) -> str:
    """`` (did you mean 'x'?)`` for an unknown key close to a real one, else ''."""
    cls = _section(loc)
    if cls is None:
        return ""
    close = difflib.get_close_matches(str(loc[-1]), list(cls.model_fields), n=1, cutoff=0.6)
    return f" (did you mean {'.'.join([*map(str, loc[:-1]), close[0]])!r}?)" if close else ""


def _expected(err: dict) -> str:
    kind = err.get("type", "")
    got = err.get("input")
    if kind == "extra_forbidden":
        return "unknown key" + did_you_mean(tuple(err["loc"]))
    if kind == "missing":
        return "required key is missing"
    ctx = err.get("ctx") or {}
    if "expected" in ctx:
        return f"expected {ctx['expected']}, got {got!r}"
    base = kind.split("_")[0]
    if kind.endswith(("_type", "_parsing")) or kind in ("model_attributes_type", "dict_type"):
        want = _TYPE_WORDS.get(base, base)
        return f"expected {want}, got {got!r} ({type(got).__name__})"
    if kind == "value_error":  # a validator's own sentence names the keys; the input echo would be the section
        return str(err["msg"]).removeprefix("Value error, ")
    return f"{err['msg']} (got {got!r})"


def one_line_error(where: str, exc: ValidationError) -> ConfigError:
    errs = exc.errors()
    # a union (e.g. `int | None`) reports one error per member: keep the first real one
    err = errs[0]
    loc = ".".join(str(p) for p in err["loc"] if not str(p).startswith("function-after")
                   and not str(p).startswith(("int", "float", "str", "list", "bool", "none", "literal")))
    n_keys = len({e["loc"][:-1] if e["type"] in ("none_required",) else e["loc"] for e in errs})
    more = f" (+{n_keys - 1} more)" if n_keys > 1 else ""
    return ConfigError(f"{where}: {loc or '<root>'}: {_expected(err)}{more}")


def parse_value(text: str) -> Any:
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
        node[parts[-1]] = parse_value(value)
    return data


VARIANTS_DIR = Path(__file__).with_name("variants")
VARIANTS = ("leap", "single_turn", "multiturn_no_pruning", "grpo_scalar_reward")


def variant_overlay(name: str) -> dict:
    """The ablation variant ``name`` as a YAML overlay (``leap/trainer/variants/<name>.yaml``): the keys
    it changes on top of a base config. One definition for `leap demo`, bench/ablation.py and configs/."""
    if name not in VARIANTS:
        raise ConfigError(f"variant: expected one of {', '.join(VARIANTS)}, got {name!r}")
    return yaml.safe_load((VARIANTS_DIR / f"{name}.yaml").read_text()) or {}


def merge(base: dict, overlay: dict) -> dict:
    """``base`` with ``overlay`` merged in, sections recursively (a new dict; inputs untouched)."""
    out = dict(base)
    for k, v in overlay.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def validate(data: dict, where: str = "<config>") -> TrainConfig:
    """A raw config dict as a `TrainConfig`; raises `ConfigError` (one line)."""
    try:
        return TrainConfig.model_validate(data)
    except ValidationError as exc:
        raise one_line_error(where, exc) from None


def load_config(path: str | Path | None, overrides: list[str] | None = None,
                variant: str | None = None) -> TrainConfig:
    """Read a YAML config, apply an ablation ``variant`` overlay and the CLI overrides, and validate;
    raises `ConfigError` (one line)."""
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
    if variant:
        data = merge(data, variant_overlay(variant))
    data = apply_overrides(data, list(overrides or []), where)
    if "model" not in data:
        raise ConfigError(f"{where}: no model section: give --config FILE (see configs/) or model.path=DIR "
                          "(`leap train --print-config` lists every key)")
    return validate(data, where)


def dump_config(cfg: TrainConfig) -> str:
    """The config as YAML (written next to checkpoints so a run can be reproduced)."""
    return yaml.safe_dump(json.loads(cfg.model_dump_json()), sort_keys=False)


# keys of `leap.sandbox.SandboxConfig` that carry no description there
_SANDBOX_DOCS = {"fp32": "rtol = atol for fp32 outputs", "fp16": "rtol = atol for fp16 outputs",
                 "bf16": "rtol = atol for bf16 outputs", "timing_samples": "timed runs per candidate (GPU)",
                 "warmup": "untimed warm-up runs (GPU)", "flush_l2": "flush the L2 cache before each timed run",
                 "cache_dir": "compile cache", "scratch_dir": "where per-candidate private dirs live",
                 "isolation": "scrubbed env, private dirs, rlimits for candidate processes",
                 "static_gate": "AST gate before compiling"}


def describe_config(cls: type[BaseModel] = TrainConfig, prefix: str = "") -> list[tuple[str, str, str]]:
    """(key, default, description) of every key of the schema, sections flattened with dots."""
    rows: list[tuple[str, str, str]] = []
    for name, field in cls.model_fields.items():
        key = f"{prefix}{name}"
        ann = field.annotation
        sub = [a for a in (ann, *getattr(ann, "__args__", ())) if isinstance(a, type) and issubclass(a, BaseModel)]
        if sub:
            rows.append((key, "(section)" if field.is_required() or field.default_factory else "null",
                         (field.description or ((sub[0].__doc__ or "").strip().splitlines() or [""])[0]).strip()))
            rows.extend(describe_config(sub[0], key + "."))
            continue
        if field.is_required():
            default = "(required)"
        else:
            value = field.get_default(call_default_factory=True)
            default = json.dumps(value, default=str)
        rows.append((key, default, field.description or _SANDBOX_DOCS.get(name, "")))
    return rows
